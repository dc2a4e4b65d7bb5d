/* SPDX-License-Identifier: Apache-2.0 */
/* The messages of wlr-layer-shell-unstable-v1, version 1, as its
 * specification lists them (requests, then events, in order). */
#include "layer-shell.h"

static const struct wl_interface *get_layer_surface_types[] = {
    &zwlr_layer_surface_v1_interface, &wl_surface_interface, &wl_output_interface, NULL, NULL,
};
static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL };

static const struct wl_message shell_requests[] = {
    { "get_layer_surface", "no?ous", get_layer_surface_types },
};

static const struct wl_message surface_requests[] = {
    { "set_size", "uu", no_types },
    { "set_anchor", "u", no_types },
    { "set_exclusive_zone", "i", no_types },
    { "set_margin", "iiii", no_types },
    { "set_keyboard_interactivity", "u", no_types },
    { "get_popup", "o", no_types },
    { "ack_configure", "u", no_types },
    { "destroy", "", no_types },
};

static const struct wl_message surface_events[] = {
    { "configure", "uuu", no_types },
    { "closed", "", no_types },
};

const struct wl_interface zwlr_layer_shell_v1_interface = { "zwlr_layer_shell_v1", 1, 1, shell_requests, 0, NULL };
const struct wl_interface zwlr_layer_surface_v1_interface = { "zwlr_layer_surface_v1", 1, 8, surface_requests, 2, surface_events };
