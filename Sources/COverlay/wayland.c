/* SPDX-License-Identifier: Apache-2.0 */
/* The Wayland backend: one layer-shell surface per stack on the overlay
 * layer, anchored to its edge, on the named output or the compositor's
 * choice (the focused one). No keyboard focus; the input region is the
 * cards, so clicks between and beside them reach the windows below. Drawn
 * at the scale of the output the surface is on. */
#define _GNU_SOURCE
#include "internal.h"
#include "layer-shell.h"

#include <errno.h>
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MAX_OUTPUTS = 16 };

typedef struct {
    struct wayland *owner;
    struct wl_output *output;
    uint32_t global;
    int scale;
    char name[64];
} output_t;

typedef struct wayland wayland_t;

typedef struct {
    wayland_t *owner;
    int which;
    struct wl_surface *surface;
    struct zwlr_layer_surface_v1 *layer;
    int configured, configured_height, width_asked;
    int scale;
    struct wl_output *on; /* the output it last went onto */
    char output[64];     /* the output it was made for ("" for the compositor's choice) */
} surface_t;

struct wayland {
    toast_overlay *overlay;
    struct wl_display *display;
    struct wl_compositor *compositor;
    struct wl_shm *shm;
    struct wl_seat *seat;
    struct wl_pointer *pointer;
    struct zwlr_layer_shell_v1 *layer_shell;
    output_t outputs[MAX_OUTPUTS];
    int output_count;
    surface_t stacks[3];
    struct wl_surface *pointer_surface;
    double pointer_x, pointer_y;
};

static wayland_t *impl(toast_overlay *overlay) { return overlay->impl; }

/* Outputs: their scale and (wl_output 4) name. */
static void output_geometry(void *d, struct wl_output *o, int32_t x, int32_t y, int32_t pw, int32_t ph, int32_t sp, const char *make, const char *model, int32_t t) {
    (void)d, (void)o, (void)x, (void)y, (void)pw, (void)ph, (void)sp, (void)make, (void)model, (void)t;
}
static void output_mode(void *d, struct wl_output *o, uint32_t flags, int32_t w, int32_t h, int32_t r) { (void)d, (void)o, (void)flags, (void)w, (void)h, (void)r; }
static void draw(wayland_t *w, int which);
/* An output's scale changed under a surface on it: draw again at the new scale. */
static void output_done(void *data, struct wl_output *o) {
    output_t *output = data;
    wayland_t *w = output->owner;
    for (int which = 0; which < 3; which++) {
        surface_t *s = &w->stacks[which];
        if (s->on != o || s->scale == output->scale) continue;
        s->scale = output->scale;
        if (s->configured && w->overlay->stacks[which].height == s->configured_height) draw(w, which);
    }
}
static void output_scale(void *data, struct wl_output *o, int32_t factor) {
    (void)o;
    ((output_t *)data)->scale = factor < 1 ? 1 : factor > 4 ? 4 : factor;
}
static void output_name(void *data, struct wl_output *o, const char *name) {
    (void)o;
    snprintf(((output_t *)data)->name, sizeof ((output_t *)data)->name, "%s", name);
}
static void output_description(void *d, struct wl_output *o, const char *description) { (void)d, (void)o, (void)description; }
static const struct wl_output_listener output_listener = { output_geometry, output_mode, output_done, output_scale, output_name, output_description };

/* The pointer: a press of the left button on a card is a click. */
static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y) {
    wayland_t *w = data;
    (void)p, (void)serial;
    w->pointer_surface = surface;
    w->pointer_x = wl_fixed_to_double(x), w->pointer_y = wl_fixed_to_double(y);
}
static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *surface) {
    (void)p, (void)serial, (void)surface;
    ((wayland_t *)data)->pointer_surface = NULL;
}
static void pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    wayland_t *w = data;
    (void)p, (void)time;
    w->pointer_x = wl_fixed_to_double(x), w->pointer_y = wl_fixed_to_double(y);
}
static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    wayland_t *w = data;
    (void)p, (void)serial, (void)time;
    if (state != WL_POINTER_BUTTON_STATE_PRESSED || button != BTN_LEFT || !w->pointer_surface) return;
    for (int which = 0; which < 3; which++)
        if (w->stacks[which].surface == w->pointer_surface) ov_stack_click(w->overlay, which, w->pointer_x, w->pointer_y);
}
static void pointer_axis(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t value) { (void)d, (void)p, (void)time, (void)axis, (void)value; }
/* The seat is bound at up to version 5, whose pointer also sends these: a
 * listener must name every event of the version bound, or libwayland
 * aborts the process at the first one it has no function for (the first
 * mouse motion over a card did, until the tests clicked on Wayland). */
static void pointer_frame(void *d, struct wl_pointer *p) { (void)d, (void)p; }
static void pointer_axis_source(void *d, struct wl_pointer *p, uint32_t source) { (void)d, (void)p, (void)source; }
static void pointer_axis_stop(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis) { (void)d, (void)p, (void)time, (void)axis; }
static void pointer_axis_discrete(void *d, struct wl_pointer *p, uint32_t axis, int32_t discrete) { (void)d, (void)p, (void)axis, (void)discrete; }
static const struct wl_pointer_listener pointer_listener = {
    .enter = pointer_enter, .leave = pointer_leave, .motion = pointer_motion, .button = pointer_button, .axis = pointer_axis,
    .frame = pointer_frame, .axis_source = pointer_axis_source, .axis_stop = pointer_axis_stop, .axis_discrete = pointer_axis_discrete,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
    wayland_t *w = data;
    if ((capabilities & WL_SEAT_CAPABILITY_POINTER) && !w->pointer) {
        w->pointer = wl_seat_get_pointer(seat);
        wl_pointer_add_listener(w->pointer, &pointer_listener, w);
    } else if (!(capabilities & WL_SEAT_CAPABILITY_POINTER) && w->pointer) {
        wl_pointer_destroy(w->pointer);
        w->pointer = NULL;
    }
}
static void seat_name(void *d, struct wl_seat *s, const char *name) { (void)d, (void)s, (void)name; }
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    wayland_t *w = data;
    if (!strcmp(interface, wl_compositor_interface.name)) w->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, wl_shm_interface.name)) w->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (!strcmp(interface, zwlr_layer_shell_v1_interface.name))
        w->layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 1);
    else if (!strcmp(interface, wl_seat_interface.name) && !w->seat) {
        w->seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 5 ? version : 5);
        wl_seat_add_listener(w->seat, &seat_listener, w);
    } else if (!strcmp(interface, wl_output_interface.name) && version >= 2) {
        int slot = 0;
        while (slot < w->output_count && w->outputs[slot].output) slot++;
        if (slot == MAX_OUTPUTS) return;
        if (slot == w->output_count) w->output_count++;
        output_t *output = &w->outputs[slot];
        *output = (output_t){ .owner = w, .global = name, .scale = 1 };
        output->output = wl_registry_bind(registry, name, &wl_output_interface, version < 4 ? version : 4);
        wl_output_add_listener(output->output, &output_listener, output);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    wayland_t *w = data;
    (void)registry;
    for (int index = 0; index < w->output_count; index++)
        if (w->outputs[index].output && w->outputs[index].global == name) {
            /* The slot stays (its listener points at it), emptied. */
            for (int which = 0; which < 3; which++)
                if (w->stacks[which].on == w->outputs[index].output) w->stacks[which].on = NULL;
            wl_output_destroy(w->outputs[index].output);
            w->outputs[index].output = NULL;
            w->outputs[index].name[0] = 0;
            return;
        }
}
static const struct wl_registry_listener registry_listener = { global, global_remove };

void *ov_wayland_open(toast_overlay *overlay, char *error, int error_size) {
    wayland_t *w = calloc(1, sizeof *w);
    w->overlay = overlay;
    for (int which = 0; which < 3; which++) w->stacks[which] = (surface_t){ .owner = w, .which = which, .scale = 1 };
    w->display = wl_display_connect(NULL);
    if (!w->display) {
        snprintf(error, (size_t)error_size, "cannot connect to the Wayland display (WAYLAND_DISPLAY)");
        free(w);
        return NULL;
    }
    struct wl_registry *registry = wl_display_get_registry(w->display);
    wl_registry_add_listener(registry, &registry_listener, w);
    wl_display_roundtrip(w->display);
    wl_display_roundtrip(w->display);  /* the outputs' names and scales */
    if (!w->compositor || !w->shm || !w->layer_shell) {
        snprintf(error, (size_t)error_size, "the compositor offers no layer shell (zwlr_layer_shell_v1)");
        wl_display_disconnect(w->display);
        free(w);
        return NULL;
    }
    return w;
}

static void buffer_release(void *data, struct wl_buffer *buffer) {
    (void)data;
    wl_buffer_destroy(buffer);
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void draw(wayland_t *w, int which) {
    toast_overlay *overlay = w->overlay;
    surface_t *s = &w->stacks[which];
    int scale = s->scale < 1 ? 1 : s->scale;
    int width = overlay->style.width * scale, height = overlay->stacks[which].height * scale, stride = width * 4, size = stride * height;
    if (size <= 0) return;
    int fd = memfd_create("toast-overlay", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) {
        if (fd >= 0) close(fd);
        return;
    }
    unsigned char *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) {
        close(fd);
        return;
    }
    struct wl_shm_pool *pool = wl_shm_create_pool(w->shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_buffer_add_listener(buffer, &buffer_listener, NULL);
    cairo_surface_t *target = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, stride);
    cairo_t *cr = cairo_create(target);
    cairo_scale(cr, scale, scale);
    ov_stack_paint(overlay, which, cr, ov_now_ms());
    cairo_destroy(cr);
    cairo_surface_flush(target);
    cairo_surface_destroy(target);
    munmap(pixels, (size_t)size);
    /* Clicks only on the cards. */
    ov_rect rects[MAX_CARDS * 2];
    int count = ov_stack_rects(overlay, which, rects, MAX_CARDS * 2);
    struct wl_region *region = wl_compositor_create_region(w->compositor);
    for (int index = 0; index < count; index++) wl_region_add(region, (int)rects[index].x, (int)rects[index].y, (int)rects[index].width, (int)rects[index].height);
    wl_surface_set_input_region(s->surface, region);
    wl_region_destroy(region);
    wl_surface_set_buffer_scale(s->surface, scale);
    wl_surface_attach(s->surface, buffer, 0, 0);
    wl_surface_damage(s->surface, 0, 0, overlay->style.width, overlay->stacks[which].height);
    wl_surface_commit(s->surface);
}


static void configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial, uint32_t width, uint32_t height) {
    surface_t *s = data;
    (void)width;
    zwlr_layer_surface_v1_ack_configure(layer, serial);
    s->configured = 1;
    s->configured_height = (int)height;
    /* A buffer of the size asked for goes only after its configure (layer-shell's rule). */
    if (s->owner->overlay->stacks[s->which].height == (int)height) draw(s->owner, s->which);
}
static void closed(void *data, struct zwlr_layer_surface_v1 *layer) {
    (void)layer;
    surface_t *s = data;  /* the compositor took it away (its output went): made again at the next change */
    s->configured = 0;
    s->configured_height = -1;
}
static const struct zwlr_layer_surface_v1_listener layer_listener = { configure, closed };

/* The surface went onto an output: draw at its scale. */
static void surface_enter(void *data, struct wl_surface *surface, struct wl_output *output) {
    surface_t *s = data;
    (void)surface;
    s->on = output;
    for (int index = 0; index < s->owner->output_count; index++)
        if (s->owner->outputs[index].output == output && s->owner->outputs[index].scale != s->scale) {
            s->scale = s->owner->outputs[index].scale;
            if (s->configured && s->owner->overlay->stacks[s->which].height == s->configured_height) draw(s->owner, s->which);
        }
}
static void surface_leave(void *data, struct wl_surface *surface, struct wl_output *output) { (void)data, (void)surface, (void)output; }
static const struct wl_surface_listener surface_listener = { surface_enter, surface_leave };

static void destroy_surface(surface_t *s) {
    if (!s->layer) return;
    zwlr_layer_surface_v1_destroy(s->layer);
    wl_surface_destroy(s->surface);
    if (s->owner->pointer_surface == s->surface) s->owner->pointer_surface = NULL;
    s->layer = NULL;
    s->surface = NULL;
    s->on = NULL;
    s->configured = 0;
}

static void present(toast_overlay *overlay, int which) {
    wayland_t *w = impl(overlay);
    surface_t *s = &w->stacks[which];
    const toast_overlay_style *style = &overlay->style;
    int height = overlay->stacks[which].height;
    const char *wanted = style->output ? style->output : "";
    if (s->layer && (height == 0 || strcmp(s->output, wanted) || s->configured_height < 0)) destroy_surface(s);
    if (height == 0) return;
    if (!s->layer) {
        struct wl_output *output = NULL;
        for (int index = 0; index < w->output_count && *wanted; index++)
            if (w->outputs[index].output && !strcmp(w->outputs[index].name, wanted)) output = w->outputs[index].output;
        snprintf(s->output, sizeof s->output, "%s", wanted);
        s->surface = wl_compositor_create_surface(w->compositor);
        wl_surface_add_listener(s->surface, &surface_listener, s);
        s->layer = zwlr_layer_shell_v1_get_layer_surface(w->layer_shell, s->surface, output, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, "toast-overlay");
        zwlr_layer_surface_v1_add_listener(s->layer, &layer_listener, s);
        zwlr_layer_surface_v1_set_keyboard_interactivity(s->layer, 0);
        s->configured_height = 0;
        s->width_asked = 0;
    }
    uint32_t anchor = which == 0 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP : which == 2 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM : 0;
    anchor |= style->horizontal == 0 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT : style->horizontal == 2 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT : 0;
    zwlr_layer_surface_v1_set_anchor(s->layer, anchor);
    zwlr_layer_surface_v1_set_margin(s->layer, style->margin_y, style->margin_x, style->margin_y, style->margin_x);
    if (s->configured && s->configured_height == height && s->width_asked == style->width) {
        draw(w, which);  /* the same size: no configure comes, draw now */
    } else {
        /* A new size: commit it, and draw once the compositor configures it. */
        zwlr_layer_surface_v1_set_size(s->layer, (uint32_t)style->width, (uint32_t)height);
        s->width_asked = style->width;
        wl_surface_commit(s->surface);
    }
}

static int fd_of(toast_overlay *overlay) { return wl_display_get_fd(impl(overlay)->display); }
static int dispatch(toast_overlay *overlay) { return wl_display_dispatch(impl(overlay)->display) < 0 ? -1 : 0; }
static int flush(toast_overlay *overlay) {
    wayland_t *w = impl(overlay);
    if (wl_display_dispatch_pending(w->display) < 0) return -1;
    return wl_display_flush(w->display) < 0 && errno != EAGAIN ? -1 : 0;
}
static void close_display(toast_overlay *overlay) {
    wayland_t *w = impl(overlay);
    for (int which = 0; which < 3; which++) destroy_surface(&w->stacks[which]);
    wl_display_disconnect(w->display);
    free(w);
}

const ov_backend ov_wayland = { present, fd_of, dispatch, flush, close_display };
