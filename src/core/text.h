/* Small text helpers every module may use: keeping a message on one line
 * whatever it quotes, parsing the CLI's numbers strictly, naming signals. */
#ifndef MT_TEXT_H
#define MT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Copies in to out (n bytes, always NUL-terminated when n > 0) with every
 * control character written as an escape: "\n", "\r", "\t", others as
 * "\xHH" (DEL too).  Backslashes and bytes >= 0x80 (UTF-8) are kept, so
 * escaping an escaped text changes nothing.  Truncates at a whole escape.
 * Messages quote file names, arguments, spec values and file contents; this
 * keeps every error one line on the terminal.  Returns out. */
char *mt_escape_line(const char *in, char *out, size_t n);

/* Parses a plain decimal number: digits only, no sign, no spaces, no leading
 * zero (except "0" itself), no base prefix, at most max.  Returns 0 and
 * sets *out, or -1 (out untouched).  "010" is refused rather than read as 8
 * (strtoul base 0) or 10 (base 10): a number that can be read two ways is
 * not accepted. */
int mt_parse_decimal(const char *s, uint64_t max, uint64_t *out);

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"; "signal" for any other. */
const char *mt_signal_name(int sig);

#endif
