#include "engine/base/loop.h"

#include "engine/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fd_watch {
	uint64_t id; /* a closed and reused fd number is a new watch */
	int fd;
	short events;
	loop_fd_cb cb;
	void *data;
	bool removed;
};

struct timer {
	uint64_t id;
	int64_t due;
	loop_timer_cb cb;
	void *data;
};

struct sig_watch {
	loop_signal_cb cb;
	void *data;
	struct sigaction old;
	bool active;
};

struct loop {
	struct fd_watch *fds;
	size_t nfds, capfds;
	struct timer *timers;
	size_t ntimers, captimers;
	uint64_t next_timer_id, next_watch_id;
	struct sig_watch sigs[NSIG];
	bool stop;
	bool dispatching;
};

/* The self-pipe is process-wide: signal handlers cannot find a loop. */
static int sig_pipe[2] = {-1, -1};
static struct loop *sig_owner;

static void sig_handler(int signo)
{
	int saved = errno;
	unsigned char b = (unsigned char)signo;
	if (sig_pipe[1] >= 0) {
		ssize_t r = write(sig_pipe[1], &b, 1);
		(void)r; /* a full pipe already carries a wake-up */
	}
	errno = saved;
}

struct loop *loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof(*l));
	l->next_timer_id = 1;
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (int s = 1; s < NSIG; s++)
		if (l->sigs[s].active)
			loop_off_signal(l, s);
	if (sig_owner == l) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		sig_pipe[0] = sig_pipe[1] = -1;
		sig_owner = NULL;
	}
	free(l->fds);
	free(l->timers);
	free(l);
}

static struct fd_watch *find_fd(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd && !l->fds[i].removed)
			return &l->fds[i];
	return NULL;
}

int loop_add_fd(struct loop *l, int fd, short events, loop_fd_cb cb, void *data)
{
	if (find_fd(l, fd))
		return -1;
	l->fds = xgrow(l->fds, &l->capfds, l->nfds + 1, sizeof(*l->fds));
	l->fds[l->nfds++] = (struct fd_watch){++l->next_watch_id, fd, events, cb, data, false};
	return 0;
}

void loop_set_events(struct loop *l, int fd, short events)
{
	struct fd_watch *w = find_fd(l, fd);
	if (w)
		w->events = events;
}

static void compact_fds(struct loop *l)
{
	size_t j = 0;
	for (size_t i = 0; i < l->nfds; i++)
		if (!l->fds[i].removed)
			l->fds[j++] = l->fds[i];
	l->nfds = j;
}

void loop_remove_fd(struct loop *l, int fd)
{
	struct fd_watch *w = find_fd(l, fd);
	if (!w)
		return;
	w->removed = true;
	if (!l->dispatching)
		compact_fds(l);
}

uint64_t loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_cb cb, void *data)
{
	l->timers = xgrow(l->timers, &l->captimers, l->ntimers + 1, sizeof(*l->timers));
	uint64_t id = l->next_timer_id++;
	l->timers[l->ntimers++] = (struct timer){id, now_ms() + (delay_ms < 0 ? 0 : delay_ms), cb, data};
	return id;
}

void loop_cancel_timer(struct loop *l, uint64_t id)
{
	for (size_t i = 0; i < l->ntimers; i++) {
		if (l->timers[i].id == id) {
			l->timers[i] = l->timers[--l->ntimers];
			return;
		}
	}
}

int64_t loop_next_timer_ms(struct loop *l)
{
	if (!l->ntimers)
		return -1;
	int64_t due = l->timers[0].due;
	for (size_t i = 1; i < l->ntimers; i++)
		if (l->timers[i].due < due)
			due = l->timers[i].due;
	int64_t d = due - now_ms();
	return d < 0 ? 0 : d;
}

static int ensure_sig_pipe(struct loop *l)
{
	if (sig_pipe[0] >= 0)
		return sig_owner == l ? 0 : -1;
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sig_owner = l;
	return 0;
}

int loop_on_signal(struct loop *l, int signo, loop_signal_cb cb, void *data)
{
	if (signo <= 0 || signo >= NSIG || ensure_sig_pipe(l) < 0)
		return -1;
	struct sig_watch *w = &l->sigs[signo];
	w->cb = cb;
	w->data = data;
	if (!w->active) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = sig_handler;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART | (signo == SIGCHLD ? SA_NOCLDSTOP : 0);
		if (sigaction(signo, &sa, &w->old) < 0)
			return -1;
		w->active = true;
	}
	return 0;
}

void loop_off_signal(struct loop *l, int signo)
{
	struct sig_watch *w = &l->sigs[signo];
	if (!w->active)
		return;
	sigaction(signo, &w->old, NULL);
	w->active = false;
	w->cb = NULL;
}

static int run_signals(struct loop *l)
{
	int ran = 0;
	unsigned char buf[64];
	ssize_t n;
	while ((n = read(sig_pipe[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			struct sig_watch *w = &l->sigs[buf[i]];
			if (w->active && w->cb) {
				w->cb(l, buf[i], w->data);
				ran++;
			}
		}
	}
	return ran;
}

static int run_timers(struct loop *l)
{
	int ran = 0;
	int64_t now = now_ms();
	/* Fire in due order; callbacks may add or cancel timers. */
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < l->ntimers; i++)
			if (l->timers[i].due <= now && (best == SIZE_MAX || l->timers[i].due < l->timers[best].due))
				best = i;
		if (best == SIZE_MAX)
			break;
		struct timer t = l->timers[best];
		l->timers[best] = l->timers[--l->ntimers];
		t.cb(l, t.data);
		ran++;
	}
	return ran;
}

int loop_run_once(struct loop *l, int max_wait_ms)
{
	size_t n = l->nfds + 1;
	struct pollfd *pfd = xcalloc(n, sizeof(*pfd));
	uint64_t *ids = xcalloc(n, sizeof(*ids));
	size_t np = 0;
	for (size_t i = 0; i < l->nfds; i++) {
		ids[np] = l->fds[i].id;
		pfd[np++] = (struct pollfd){l->fds[i].fd, l->fds[i].events, 0};
	}
	bool have_sig = sig_owner == l && sig_pipe[0] >= 0;
	if (have_sig)
		pfd[np++] = (struct pollfd){sig_pipe[0], POLLIN, 0};

	int64_t wait = max_wait_ms;
	int64_t t = loop_next_timer_ms(l);
	if (t >= 0 && (wait < 0 || t < wait))
		wait = t;
	int r = poll(pfd, np, (int)(wait > 60000 ? 60000 : wait));
	if (r < 0 && errno != EINTR) {
		free(pfd);
		free(ids);
		return -1;
	}
	int ran = 0;
	if (r > 0) {
		l->dispatching = true;
		size_t nwatch = have_sig ? np - 1 : np;
		for (size_t i = 0; i < nwatch; i++) {
			if (!pfd[i].revents)
				continue;
			/* Only the watch that was polled: a callback earlier in this
			 * pass may have closed the fd and registered its number again. */
			struct fd_watch *w = find_fd(l, pfd[i].fd);
			if (w && w->id == ids[i]) {
				w->cb(l, w->fd, pfd[i].revents, w->data);
				ran++;
			}
		}
		l->dispatching = false;
		compact_fds(l);
	}
	if (have_sig)
		ran += run_signals(l);
	ran += run_timers(l);
	free(pfd);
	free(ids);
	return ran;
}

void loop_run(struct loop *l)
{
	l->stop = false;
	while (!l->stop)
		if (loop_run_once(l, -1) < 0)
			break;
}

void loop_stop(struct loop *l)
{
	l->stop = true;
}
