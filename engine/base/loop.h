/* The one event loop (docs/architecture.md, "Principles"): poll() over
 * registered file descriptors, one-shot timers on the monotonic clock, and
 * signals delivered through a self-pipe so handlers run as ordinary
 * callbacks. The headless orchestrator and the TUI share one instance. */
#ifndef TILEPORT_CORE_LOOP_H
#define TILEPORT_CORE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;

typedef void (*loop_fd_cb)(struct loop *l, int fd, short revents, void *data);
typedef void (*loop_timer_cb)(struct loop *l, void *data);
typedef void (*loop_signal_cb)(struct loop *l, int signo, void *data);

struct loop *loop_new(void);
void loop_free(struct loop *l);

/* Watch fd for `events` (POLLIN/POLLOUT). One registration per fd. */
int loop_add_fd(struct loop *l, int fd, short events, loop_fd_cb cb, void *data);
void loop_set_events(struct loop *l, int fd, short events);
void loop_remove_fd(struct loop *l, int fd);

/* One-shot timer; returns an id > 0 usable with loop_cancel_timer. */
uint64_t loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_cb cb, void *data);
void loop_cancel_timer(struct loop *l, uint64_t id);
/* Milliseconds until the next timer fires, or -1 when none is armed. */
int64_t loop_next_timer_ms(struct loop *l);

/* Deliver signo to cb from inside the loop. The handler is installed with
 * SA_RESTART; only one callback per signal. */
int loop_on_signal(struct loop *l, int signo, loop_signal_cb cb, void *data);
void loop_off_signal(struct loop *l, int signo);

/* Run one pass: wait at most max_wait_ms (-1 = until something happens,
 * bounded by the next timer), dispatch ready fds, due timers and pending
 * signals. Returns the number of callbacks run, or -1 on a poll error. */
int loop_run_once(struct loop *l, int max_wait_ms);
/* Run passes until loop_stop() is called. */
void loop_run(struct loop *l);
void loop_stop(struct loop *l);

#endif
