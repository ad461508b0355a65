/* The node's turn-taking for links between GPUs (src/cli/node_gate.c):
 * no link starts while a GPU still runs its other probes, two links never
 * overlap, and a GPU whose measurement ends without a link (it failed)
 * holds nobody up.  Before the gate, each GPU measured its links on its
 * own thread at once: on the two H200s, GPU 1's writes to GPU 0 and
 * GPU 0's reads from GPU 1 shared one NVLink (516 GB/s over 450). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "cli/node_gate.h"

#define MEMBERS 4
#define LINKS_EACH 3

typedef struct {
    mt_node_gate_member m;
    pthread_mutex_t *log_lock;
    int *in_link, *max_in_link, *probes_running, *link_during_probes;
    bool fail_early; /* ends without a link, as a GPU whose probes failed */
} member_job;

static void nap(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

static void *run_member(void *arg)
{
    member_job *j = arg;
    nap(j->fail_early ? 500 : 2000); /* its own probes */
    pthread_mutex_lock(j->log_lock);
    (*j->probes_running)--;
    pthread_mutex_unlock(j->log_lock);
    for (int k = 0; !j->fail_early && k < LINKS_EACH; k++) {
        j->m.gate.enter(j->m.gate.ctx);
        pthread_mutex_lock(j->log_lock);
        (*j->in_link)++;
        if (*j->in_link > *j->max_in_link)
            *j->max_in_link = *j->in_link;
        if (*j->probes_running > 0)
            (*j->link_during_probes)++;
        pthread_mutex_unlock(j->log_lock);
        nap(300); /* the link's experiments: another thread may try now */
        pthread_mutex_lock(j->log_lock);
        (*j->in_link)--;
        pthread_mutex_unlock(j->log_lock);
        j->m.gate.leave(j->m.gate.ctx);
    }
    mt_node_gate_member_done(&j->m);
    return NULL;
}

static void run_node(bool one_fails)
{
    mt_node_gate g;
    assert_int_equal(mt_node_gate_init(&g, MEMBERS), 0);
    pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
    int in_link = 0, max_in_link = 0, probes_running = MEMBERS, link_during_probes = 0;
    member_job jobs[MEMBERS];
    pthread_t th[MEMBERS];
    for (int i = 0; i < MEMBERS; i++) {
        jobs[i] = (member_job){.log_lock = &log_lock, .in_link = &in_link,
                               .max_in_link = &max_in_link, .probes_running = &probes_running,
                               .link_during_probes = &link_during_probes,
                               .fail_early = one_fails && i == 2};
        mt_node_gate_member_init(&jobs[i].m, &g);
    }
    for (int i = 0; i < MEMBERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run_member, &jobs[i]), 0);
    for (int i = 0; i < MEMBERS; i++)
        pthread_join(th[i], NULL);
    mt_node_gate_destroy(&g);
    assert_int_equal(max_in_link, 1);        /* never two links at once */
    assert_int_equal(link_during_probes, 0); /* nor one beside a GPU's probes */
    assert_int_equal(g.pending, 0);
}

static void test_links_one_at_a_time_after_the_probes(void **state)
{
    (void)state;
    run_node(false);
}

static void test_a_failed_gpu_holds_nobody_up(void **state)
{
    (void)state;
    run_node(true); /* would hang (the test's timeout) if it did */
}

static void test_done_is_idempotent(void **state)
{
    (void)state;
    mt_node_gate g;
    assert_int_equal(mt_node_gate_init(&g, 2), 0);
    mt_node_gate_member a, b;
    mt_node_gate_member_init(&a, &g);
    mt_node_gate_member_init(&b, &g);
    mt_node_gate_member_done(&a);
    mt_node_gate_member_done(&a);
    assert_int_equal(g.pending, 1); /* b has not arrived: a counted once */
    mt_node_gate_member_done(&b);
    b.gate.enter(b.gate.ctx); /* everyone arrived, nothing busy: no wait */
    assert_true(g.busy);
    b.gate.leave(b.gate.ctx);
    assert_false(g.busy);
    mt_node_gate_destroy(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links_one_at_a_time_after_the_probes),
        cmocka_unit_test(test_a_failed_gpu_holds_nobody_up),
        cmocka_unit_test(test_done_is_idempotent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
