/* The turn-taking of a node run's links between GPUs (mt_link_gate,
 * probes/probe.h): a barrier, then one link at a time.
 *
 * Each GPU's thread holds one member.  A member "arrives" at its first
 * enter (its other probes are done) or when its measurement ends without
 * one (it failed, was stopped, or measures no link): enter waits until
 * every member has arrived and no link is being measured, so the links
 * between GPUs run after every GPU's own probes, one after another, and
 * a GPU that fails early holds nobody up. */
#ifndef MT_CLI_NODE_GATE_H
#define MT_CLI_NODE_GATE_H

#include <pthread.h>
#include <stdbool.h>

#include "../probes/probe.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int pending; /* members that have not arrived */
    bool busy;   /* a link between GPUs is being measured */
} mt_node_gate;

typedef struct {
    mt_node_gate *node;
    bool arrived;
    mt_link_gate gate; /* what the member's probe options point to */
} mt_node_gate_member;

/* A gate for n members; 0, or an errno value from pthreads. */
int mt_node_gate_init(mt_node_gate *g, int n);
void mt_node_gate_destroy(mt_node_gate *g);
/* Member m of g (its gate ready for mt_probe_options.link_gate). */
void mt_node_gate_member_init(mt_node_gate_member *m, mt_node_gate *g);
/* m's measurement has ended: it arrives if it has not (idempotent). */
void mt_node_gate_member_done(mt_node_gate_member *m);

#endif
