/* SPDX-License-Identifier: Apache-2.0 */
/* wayland-click X Y: a left click at (X, Y) of a wlroots compositor's
 * layout, through a virtual pointer (wlr-virtual-pointer-unstable-v1).
 * A headless sway has no input devices, so its seat has no pointer and
 * `swaymsg seat - cursor press` reaches no client; a virtual pointer is
 * a device of the seat, and the compositor routes its motion and buttons
 * to the surface under it, as it would a mouse's. For the overlay's tests
 * (Tests/IntegrationTests/OverlayTests.swift); not installed. */
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>

/* The protocol's messages, as its specification lists them (version 1). */
extern const struct wl_interface zwlr_virtual_pointer_v1_interface;
static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL, NULL };
static const struct wl_interface *create_types[] = { &wl_seat_interface, &zwlr_virtual_pointer_v1_interface };
static const struct wl_message pointer_requests[] = {
    { "motion", "uff", no_types },
    { "motion_absolute", "uuuuu", no_types },
    { "button", "uuu", no_types },
    { "axis", "uuf", no_types },
    { "frame", "", no_types },
    { "axis_source", "u", no_types },
    { "axis_stop", "uu", no_types },
    { "axis_discrete", "uufi", no_types },
    { "destroy", "", no_types },
};
const struct wl_interface zwlr_virtual_pointer_v1_interface = {
    "zwlr_virtual_pointer_v1", 1, 9, pointer_requests, 0, NULL,
};
static const struct wl_message manager_requests[] = {
    { "create_virtual_pointer", "?on", create_types },
};
static const struct wl_interface manager_interface = {
    "zwlr_virtual_pointer_manager_v1", 1, 1, manager_requests, 0, NULL,
};
enum { MOTION_ABSOLUTE = 1, BUTTON = 2, FRAME = 4, DESTROY = 8 };

struct globals {
    struct wl_proxy *manager;
    struct wl_seat *seat;
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    struct globals *g = data;
    (void)version;
    if (!strcmp(interface, manager_interface.name)) g->manager = wl_registry_bind(registry, name, &manager_interface, 1);
    else if (!strcmp(interface, wl_seat_interface.name) && !g->seat) g->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data, (void)registry, (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static int parse(const char *text, uint32_t *value) {
    char *end;
    unsigned long parsed = strtoul(text, &end, 10);
    if (!*text || *end || parsed > 100000) return -1;
    *value = (uint32_t)parsed;
    return 0;
}

int main(int argc, char **argv) {
    uint32_t x, y, width = 0, height = 0;
    if (argc != 5 || parse(argv[1], &x) || parse(argv[2], &y) || parse(argv[3], &width) || parse(argv[4], &height) || x >= width || y >= height) {
        fprintf(stderr, "usage: wayland-click X Y LAYOUT-WIDTH LAYOUT-HEIGHT\n");
        return 2;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        fprintf(stderr, "wayland-click: no Wayland display\n");
        return 1;
    }
    struct globals g = { 0 };
    wl_registry_add_listener(wl_display_get_registry(display), &registry_listener, &g);
    wl_display_roundtrip(display);
    if (!g.manager || !g.seat) {
        fprintf(stderr, "wayland-click: the compositor offers no virtual pointer\n");
        return 1;
    }
    struct wl_proxy *pointer = wl_proxy_marshal_constructor(g.manager, 0, &zwlr_virtual_pointer_v1_interface, g.seat, NULL);
    wl_display_roundtrip(display);
    /* The seat now has a pointer: its clients ask for theirs. */
    usleep(200000);
    wl_proxy_marshal(pointer, MOTION_ABSOLUTE, 0u, x, y, width, height);
    wl_proxy_marshal(pointer, FRAME);
    wl_display_roundtrip(display);
    usleep(100000);
    wl_proxy_marshal(pointer, BUTTON, 1u, (uint32_t)BTN_LEFT, (uint32_t)WL_POINTER_BUTTON_STATE_PRESSED);
    wl_proxy_marshal(pointer, FRAME);
    wl_proxy_marshal(pointer, BUTTON, 2u, (uint32_t)BTN_LEFT, (uint32_t)WL_POINTER_BUTTON_STATE_RELEASED);
    wl_proxy_marshal(pointer, FRAME);
    wl_display_roundtrip(display);
    usleep(100000);
    wl_proxy_marshal(pointer, DESTROY);
    wl_proxy_destroy(pointer);
    int failed = wl_display_roundtrip(display) < 0;
    wl_display_disconnect(display);
    return failed;
}
