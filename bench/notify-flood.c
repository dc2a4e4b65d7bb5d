/* SPDX-License-Identifier: Apache-2.0 */
/* Fills a notification server with COUNT notifications that never expire,
 * for the memory section's peers (dunst, mako) at 100,000 queued: the same
 * load toast-bench gives toastd. Calls Notify on the session bus
 * ($DBUS_SESSION_BUS_ADDRESS) with at most WINDOW calls unanswered, so that
 * neither the bus nor the server queues more than a window, and prints one
 * line: "sent N answered A errors E seconds S".
 *
 * usage: notify-flood COUNT [WINDOW [SECONDS [FIRST]]]
 *   SECONDS   stop sending after this long (the line says how many went);
 *             0, the default, never stops early
 *   FIRST     the number in the first notification's text (default 0): the
 *             texts differ, so that no server stacks them as duplicates */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

struct flood {
    long outstanding, answered, errors;
};

static int answered(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)error;
    struct flood *flood = userdata;
    flood->outstanding--;
    flood->answered++;
    if (sd_bus_message_is_method_error(reply, NULL)) {
        if (flood->errors++ == 0) {
            const sd_bus_error *e = sd_bus_message_get_error(reply);
            fprintf(stderr, "notify-flood: %s: %s\n", e->name, e->message ? e->message : "");
        }
    }
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: notify-flood COUNT [WINDOW [SECONDS [FIRST]]]\n");
        return 2;
    }
    long count = strtol(argv[1], NULL, 10);
    long window = argc > 2 ? strtol(argv[2], NULL, 10) : 64;
    double budget = argc > 3 ? strtod(argv[3], NULL) : 0;
    long first = argc > 4 ? strtol(argv[4], NULL, 10) : 0;
    if (count <= 0 || window <= 0) return 2;
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) {
        fprintf(stderr, "notify-flood: session bus: %s\n", strerror(-r));
        return 1;
    }
    struct flood flood = {0};
    double started = now();
    long sent = 0;
    while (sent < count || flood.outstanding > 0) {
        int stopping = budget > 0 && now() - started > budget;
        while (!stopping && sent < count && flood.outstanding < window) {
            char summary[64], body[96];
            snprintf(summary, sizeof summary, "Deploy %ld", first + sent);
            snprintf(body, sizeof body, "deploy %ld waiting for approval", first + sent);
            r = sd_bus_call_method_async(bus, NULL, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                         "org.freedesktop.Notifications", "Notify", answered, &flood, "susssasa{sv}i",
                                         "bench", (uint32_t)0, "", summary, body, 0, 0, (int32_t)0);
            if (r < 0) {
                fprintf(stderr, "notify-flood: Notify: %s\n", strerror(-r));
                return 1;
            }
            sent++;
            flood.outstanding++;
        }
        if (stopping && flood.outstanding == 0) break;
        r = sd_bus_process(bus, NULL);
        if (r < 0) {
            fprintf(stderr, "notify-flood: %s\n", strerror(-r));
            return 1;
        }
        if (r == 0 && sd_bus_wait(bus, 10 * 1000 * 1000) < 0) return 1;
    }
    printf("sent %ld answered %ld errors %ld seconds %.1f\n", sent, flood.answered, flood.errors, now() - started);
    sd_bus_flush_close_unref(bus);
    return flood.errors == 0 ? 0 : 1;
}
