/* The node's turn-taking for links between GPUs (node_gate.h). */
#include "node_gate.h"

int mt_node_gate_init(mt_node_gate *g, int n)
{
    g->pending = n;
    g->busy = false;
    int e = pthread_mutex_init(&g->lock, NULL);
    if (e)
        return e;
    if ((e = pthread_cond_init(&g->changed, NULL)))
        pthread_mutex_destroy(&g->lock);
    return e;
}

void mt_node_gate_destroy(mt_node_gate *g)
{
    pthread_cond_destroy(&g->changed);
    pthread_mutex_destroy(&g->lock);
}

/* With the lock held. */
static void arrive(mt_node_gate_member *m)
{
    if (m->arrived)
        return;
    m->arrived = true;
    m->node->pending--;
    pthread_cond_broadcast(&m->node->changed);
}

static void enter(void *ctx)
{
    mt_node_gate_member *m = ctx;
    mt_node_gate *g = m->node;
    pthread_mutex_lock(&g->lock);
    arrive(m);
    while (g->pending > 0 || g->busy)
        pthread_cond_wait(&g->changed, &g->lock);
    g->busy = true;
    pthread_mutex_unlock(&g->lock);
}

static void leave(void *ctx)
{
    mt_node_gate *g = ((mt_node_gate_member *)ctx)->node;
    pthread_mutex_lock(&g->lock);
    g->busy = false;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

void mt_node_gate_member_init(mt_node_gate_member *m, mt_node_gate *g)
{
    m->node = g;
    m->arrived = false;
    m->gate = (mt_link_gate){.ctx = m, .enter = enter, .leave = leave};
}

void mt_node_gate_member_done(mt_node_gate_member *m)
{
    pthread_mutex_lock(&m->node->lock);
    arrive(m);
    pthread_mutex_unlock(&m->node->lock);
}
