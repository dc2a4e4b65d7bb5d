/* SPDX-License-Identifier: Apache-2.0 */
/* A libnotify client, as any desktop app is one, for toastd's bridge tests.
 *
 *   libnotify-client APP SUMMARY BODY [--action KEY LABEL]... [--wait MS] [--close]
 *
 * Shows one notification and prints "id N". With --close it closes it
 * through its own connection. With --wait it runs the main loop up to MS
 * milliseconds and prints "action KEY" for each action invoked, and
 * "closed REASON" when the notification closes. */
#include <libnotify/notify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GMainLoop *loop;

static void on_action(NotifyNotification *n, char *action, gpointer data) {
    (void)n; (void)data;
    printf("action %s\n", action);
    fflush(stdout);
}

static void on_closed(NotifyNotification *n, gpointer data) {
    (void)data;
    printf("closed %d\n", notify_notification_get_closed_reason(n));
    fflush(stdout);
    g_main_loop_quit(loop);
}

static gboolean on_timeout(gpointer data) {
    (void)data;
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s APP SUMMARY BODY [--action KEY LABEL]... [--wait MS] [--close]\n", argv[0]);
        return 2;
    }
    if (!notify_init(argv[1])) return 1;
    NotifyNotification *n = notify_notification_new(argv[2], argv[3], NULL);
    notify_notification_set_timeout(n, NOTIFY_EXPIRES_NEVER);
    int wait_ms = 0, close_it = 0;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--action") && i + 2 < argc) {
            notify_notification_add_action(n, argv[i + 1], argv[i + 2], on_action, NULL, NULL);
            i += 2;
        } else if (!strcmp(argv[i], "--wait") && i + 1 < argc) {
            wait_ms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--close")) {
            close_it = 1;
        }
    }
    g_signal_connect(n, "closed", G_CALLBACK(on_closed), NULL);
    GError *error = NULL;
    if (!notify_notification_show(n, &error)) {
        fprintf(stderr, "show: %s\n", error ? error->message : "failed");
        return 1;
    }
    gint id = 0;
    g_object_get(n, "id", &id, NULL);
    printf("id %d\n", id);
    fflush(stdout);
    if (close_it && !notify_notification_close(n, &error)) {
        fprintf(stderr, "close: %s\n", error ? error->message : "failed");
        return 1;
    }
    if (wait_ms > 0) {
        loop = g_main_loop_new(NULL, FALSE);
        g_timeout_add(wait_ms, on_timeout, NULL);
        g_main_loop_run(loop);
    }
    notify_uninit();
    return 0;
}
