/* memtopo: discover and report the memory hierarchy of an NVIDIA GPU. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return mt_cli_main(argc, argv);
}
