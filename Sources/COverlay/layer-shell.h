/* SPDX-License-Identifier: Apache-2.0 */
/* The wlr-layer-shell-unstable-v1 protocol (version 1), bound by hand from
 * its specification: the interfaces' messages and the two listeners toastd's
 * prototypes use. No Debian package installs the protocol's XML here. */
#pragma once
#include <wayland-client.h>

struct zwlr_layer_shell_v1;
struct zwlr_layer_surface_v1;

extern const struct wl_interface zwlr_layer_shell_v1_interface;
extern const struct wl_interface zwlr_layer_surface_v1_interface;

enum { ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY = 3 };
enum {
    ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP = 1, ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM = 2,
    ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT = 4, ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT = 8,
};

struct zwlr_layer_surface_v1_listener {
    void (*configure)(void *data, struct zwlr_layer_surface_v1 *surface, uint32_t serial, uint32_t width, uint32_t height);
    void (*closed)(void *data, struct zwlr_layer_surface_v1 *surface);
};

static inline struct zwlr_layer_surface_v1 *zwlr_layer_shell_v1_get_layer_surface(
    struct zwlr_layer_shell_v1 *shell, struct wl_surface *surface, struct wl_output *output, uint32_t layer, const char *name_space) {
    return (struct zwlr_layer_surface_v1 *)wl_proxy_marshal_flags(
        (struct wl_proxy *)shell, 0, &zwlr_layer_surface_v1_interface, wl_proxy_get_version((struct wl_proxy *)shell), 0,
        NULL, surface, output, layer, name_space);
}

static inline void zwlr_layer_surface_v1_set_size(struct zwlr_layer_surface_v1 *s, uint32_t width, uint32_t height) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 0, NULL, wl_proxy_get_version((struct wl_proxy *)s), 0, width, height);
}
static inline void zwlr_layer_surface_v1_set_anchor(struct zwlr_layer_surface_v1 *s, uint32_t anchor) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 1, NULL, wl_proxy_get_version((struct wl_proxy *)s), 0, anchor);
}
static inline void zwlr_layer_surface_v1_set_margin(struct zwlr_layer_surface_v1 *s, int32_t top, int32_t right, int32_t bottom, int32_t left) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 3, NULL, wl_proxy_get_version((struct wl_proxy *)s), 0, top, right, bottom, left);
}
static inline void zwlr_layer_surface_v1_set_keyboard_interactivity(struct zwlr_layer_surface_v1 *s, uint32_t interactivity) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 4, NULL, wl_proxy_get_version((struct wl_proxy *)s), 0, interactivity);
}
static inline void zwlr_layer_surface_v1_destroy(struct zwlr_layer_surface_v1 *s) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 7, NULL, wl_proxy_get_version((struct wl_proxy *)s), WL_MARSHAL_FLAG_DESTROY);
}
static inline void zwlr_layer_surface_v1_ack_configure(struct zwlr_layer_surface_v1 *s, uint32_t serial) {
    wl_proxy_marshal_flags((struct wl_proxy *)s, 6, NULL, wl_proxy_get_version((struct wl_proxy *)s), 0, serial);
}
static inline int zwlr_layer_surface_v1_add_listener(struct zwlr_layer_surface_v1 *s, const struct zwlr_layer_surface_v1_listener *l, void *data) {
    return wl_proxy_add_listener((struct wl_proxy *)s, (void (**)(void))l, data);
}
