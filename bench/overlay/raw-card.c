/* SPDX-License-Identifier: Apache-2.0 */
/* toast-overlay's toolkit candidate 1: wayland-client, toast-overlay's layer-shell
 * binding (Sources/COverlay), cairo and pango, as mako draws. One card, anchored top,
 * on the overlay layer; it prints "drawn" after its first frame and keeps
 * running (for the memory and wakeup measurements). */
#define _GNU_SOURCE
#include "layer-shell.h"
#include <cairo.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct zwlr_layer_shell_v1 *layer_shell;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data; (void)version;
    if (!strcmp(interface, wl_compositor_interface.name)) compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, wl_shm_interface.name)) shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (!strcmp(interface, zwlr_layer_shell_v1_interface.name)) layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static struct wl_surface *surface;
static int drawn;

static void draw(uint32_t width, uint32_t height) {
    int stride = (int)width * 4, size = stride * (int)height;
    int fd = memfd_create("toast-card", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) exit(1);
    unsigned char *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, (int)width, (int)height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    cairo_surface_t *target = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, (int)width, (int)height, stride);
    cairo_t *cr = cairo_create(target);
    cairo_set_source_rgba(cr, 0.13, 0.55, 0.13, 0.95);  /* success green */
    cairo_paint(cr);
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string("Sans Bold 14");
    pango_layout_set_font_description(layout, font);
    pango_layout_set_markup(layout, "✔ <b>CI</b>\nAll 64 tests passed.", -1);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_move_to(cr, 16, 12);
    pango_cairo_show_layout(cr, layout);
    pango_font_description_free(font);
    g_object_unref(layout);
    cairo_destroy(cr);
    cairo_surface_destroy(target);
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage(surface, 0, 0, (int)width, (int)height);
    wl_surface_commit(surface);
}

static void configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial, uint32_t width, uint32_t height) {
    (void)data;
    zwlr_layer_surface_v1_ack_configure(layer, serial);
    draw(width ? width : 400, height ? height : 80);
    if (!drawn++) { printf("drawn\n"); fflush(stdout); }
}
static void closed(void *data, struct zwlr_layer_surface_v1 *layer) { (void)data; (void)layer; exit(0); }
static const struct zwlr_layer_surface_v1_listener layer_listener = { configure, closed };

int main(void) {
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "no Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !layer_shell) { fprintf(stderr, "no layer shell\n"); return 1; }
    surface = wl_compositor_create_surface(compositor);
    struct zwlr_layer_surface_v1 *layer = zwlr_layer_shell_v1_get_layer_surface(
        layer_shell, surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, "toast-overlay");
    zwlr_layer_surface_v1_set_size(layer, 400, 80);
    zwlr_layer_surface_v1_set_anchor(layer, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP);
    zwlr_layer_surface_v1_set_margin(layer, 16, 0, 0, 0);
    zwlr_layer_surface_v1_add_listener(layer, &layer_listener, NULL);
    wl_surface_commit(surface);
    while (wl_display_dispatch(display) != -1) {}
    return 0;
}
