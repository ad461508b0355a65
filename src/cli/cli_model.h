/* memtopo model (issue 12): the CLI side of src/model. */
#ifndef MT_CLI_MODEL_H
#define MT_CLI_MODEL_H

#include <jansson.h>
#include <stdio.h>

#include "../model/model.h"

/* schema/model.schema.json's version: major changes break readers. */
#define MT_MODEL_SCHEMA_VERSION "1.0.0"
#define MT_MODEL_MAX_WHAT_IF 16

typedef struct {
    mt_model_kernel kernel;
    mt_model_result base, what_if;
    int retargeted;
} mt_cli_model_pred;

typedef struct {
    mt_model_machine machine, what_if_machine;
    mt_model_sched sched;
    const char *what_if[MT_MODEL_MAX_WHAT_IF];
    int n_what_if, has_what_if;
    mt_cli_model_pred *preds;
    size_t n;
} mt_cli_model_run;

int mt_cli_model(int argc, char **argv);
void mt_cli_model_text(FILE *f, const mt_cli_model_run *run);
json_t *mt_cli_model_json(const mt_cli_model_run *run);

#endif
