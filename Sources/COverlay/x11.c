/* SPDX-License-Identifier: Apache-2.0 */
/* The X11 backend: one override-redirect window per stack (a notification
 * window, above the others, never focused), placed by alignment on the
 * screen and shaped to what is drawn (the alpha of its picture), so the
 * gaps and rounded corners let clicks and the desktop through. Without a
 * compositing manager nothing blends, so cards slide but do not fade. */
#define _GNU_SOURCE
#include "internal.h"

#include <cairo-xcb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/shape.h>
#include <xcb/xcb.h>

typedef struct {
    xcb_window_t window;
    int mapped, x, y, width, height;
} window_t;

typedef struct {
    toast_overlay *overlay;
    xcb_connection_t *connection;
    xcb_screen_t *screen;
    xcb_visualtype_t *visual;
    window_t stacks[3];
    xcb_atom_t window_type, notification, state, above;
} x11_t;

static x11_t *impl(toast_overlay *overlay) { return overlay->impl; }

static xcb_atom_t atom(xcb_connection_t *connection, const char *name) {
    xcb_intern_atom_reply_t *reply = xcb_intern_atom_reply(connection, xcb_intern_atom(connection, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t value = reply ? reply->atom : XCB_ATOM_NONE;
    free(reply);
    return value;
}

void *ov_x11_open(toast_overlay *overlay, char *error, int error_size) {
    int preferred = 0;
    xcb_connection_t *connection = xcb_connect(NULL, &preferred);
    if (xcb_connection_has_error(connection)) {
        snprintf(error, (size_t)error_size, "cannot connect to the X display (DISPLAY)");
        xcb_disconnect(connection);
        return NULL;
    }
    const xcb_query_extension_reply_t *shape = xcb_get_extension_data(connection, &xcb_shape_id);
    if (!shape || !shape->present) {
        snprintf(error, (size_t)error_size, "the X server has no SHAPE extension");
        xcb_disconnect(connection);
        return NULL;
    }
    x11_t *x = calloc(1, sizeof *x);
    x->overlay = overlay;
    x->connection = connection;
    xcb_screen_iterator_t screens = xcb_setup_roots_iterator(xcb_get_setup(connection));
    for (int index = 0; index < preferred && screens.rem; index++) xcb_screen_next(&screens);
    x->screen = screens.data;
    for (xcb_depth_iterator_t depths = xcb_screen_allowed_depths_iterator(x->screen); depths.rem && !x->visual; xcb_depth_next(&depths))
        for (xcb_visualtype_iterator_t visuals = xcb_depth_visuals_iterator(depths.data); visuals.rem; xcb_visualtype_next(&visuals))
            if (visuals.data->visual_id == x->screen->root_visual) x->visual = visuals.data;
    x->window_type = atom(connection, "_NET_WM_WINDOW_TYPE");
    x->notification = atom(connection, "_NET_WM_WINDOW_TYPE_NOTIFICATION");
    x->state = atom(connection, "_NET_WM_STATE");
    x->above = atom(connection, "_NET_WM_STATE_ABOVE");
    overlay->opaque = 1;
    return x;
}

static void make_window(x11_t *x, window_t *w) {
    w->window = xcb_generate_id(x->connection);
    uint32_t values[] = { 1, XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_BUTTON_PRESS };
    xcb_create_window(x->connection, XCB_COPY_FROM_PARENT, w->window, x->screen->root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      x->screen->root_visual, XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
    xcb_change_property(x->connection, XCB_PROP_MODE_REPLACE, w->window, x->window_type, XCB_ATOM_ATOM, 32, 1, &x->notification);
    xcb_change_property(x->connection, XCB_PROP_MODE_REPLACE, w->window, x->state, XCB_ATOM_ATOM, 32, 1, &x->above);
    xcb_change_property(x->connection, XCB_PROP_MODE_REPLACE, w->window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 13, "toast-overlay");
    xcb_change_property(x->connection, XCB_PROP_MODE_REPLACE, w->window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, 28, "toast-overlay\0toast-overlay");
    w->mapped = 0;
}

/* `picture` painted over all of `surface` (its alpha too), and the surface let go of. */
static void paint_into(cairo_surface_t *surface, cairo_surface_t *picture) {
    cairo_t *cr = cairo_create(surface);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_surface(cr, picture, 0, 0);
    cairo_paint(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
}

/* Draws the stack, and shapes its window to the picture's alpha. */
static void draw(x11_t *x, int which) {
    toast_overlay *overlay = x->overlay;
    window_t *w = &x->stacks[which];
    if (!w->window || w->width <= 0 || w->height <= 0) return;
    cairo_surface_t *picture = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w->width, w->height);
    cairo_t *cr = cairo_create(picture);
    ov_stack_paint(overlay, which, cr, ov_now_ms());
    cairo_destroy(cr);
    /* The shape: a 1-bit mask of what is drawn. */
    xcb_pixmap_t pixmap = xcb_generate_id(x->connection);
    xcb_create_pixmap(x->connection, 1, pixmap, w->window, (uint16_t)w->width, (uint16_t)w->height);
    paint_into(cairo_xcb_surface_create_for_bitmap(x->connection, x->screen, pixmap, w->width, w->height), picture);
    xcb_shape_mask(x->connection, XCB_SHAPE_SO_SET, XCB_SHAPE_SK_BOUNDING, w->window, 0, 0, pixmap);
    xcb_free_pixmap(x->connection, pixmap);
    paint_into(cairo_xcb_surface_create(x->connection, w->window, x->visual, w->width, w->height), picture);
    cairo_surface_destroy(picture);
}

static void present(toast_overlay *overlay, int which) {
    x11_t *x = impl(overlay);
    window_t *w = &x->stacks[which];
    int height = overlay->stacks[which].height;
    if (height == 0) {
        if (w->window && w->mapped) xcb_unmap_window(x->connection, w->window);
        w->mapped = 0;
        return;
    }
    if (!w->window) make_window(x, w);
    int left, top;
    ov_stack_origin(overlay, which, x->screen->width_in_pixels, x->screen->height_in_pixels, &left, &top);
    if (left != w->x || top != w->y || overlay->style.width != w->width || height != w->height || !w->mapped) {
        w->x = left, w->y = top, w->width = overlay->style.width, w->height = height;
        uint32_t geometry[] = { (uint32_t)left, (uint32_t)top, (uint32_t)w->width, (uint32_t)height, XCB_STACK_MODE_ABOVE };
        xcb_configure_window(x->connection, w->window,
                             XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT | XCB_CONFIG_WINDOW_STACK_MODE,
                             geometry);
    }
    draw(x, which);
    if (!w->mapped) {
        xcb_map_window(x->connection, w->window);
        w->mapped = 1;
    }
}

static int fd_of(toast_overlay *overlay) { return xcb_get_file_descriptor(impl(overlay)->connection); }

static int dispatch(toast_overlay *overlay) {
    x11_t *x = impl(overlay);
    xcb_generic_event_t *event;
    while ((event = xcb_poll_for_event(x->connection))) {
        uint8_t type = event->response_type & 0x7F;
        for (int which = 0; which < 3; which++) {
            window_t *w = &x->stacks[which];
            if (type == XCB_EXPOSE && ((xcb_expose_event_t *)event)->window == w->window && ((xcb_expose_event_t *)event)->count == 0) draw(x, which);
            if (type == XCB_BUTTON_PRESS) {
                xcb_button_press_event_t *press = (xcb_button_press_event_t *)event;
                if (press->event == w->window && press->detail == 1) ov_stack_click(overlay, which, press->event_x, press->event_y);
            }
        }
        free(event);
    }
    return xcb_connection_has_error(x->connection) ? -1 : 0;
}

static int flush(toast_overlay *overlay) {
    x11_t *x = impl(overlay);
    return xcb_flush(x->connection) <= 0 || xcb_connection_has_error(x->connection) ? -1 : 0;
}

static void close_display(toast_overlay *overlay) {
    x11_t *x = impl(overlay);
    xcb_disconnect(x->connection);
    free(x);
}

const ov_backend ov_x11 = { present, fd_of, dispatch, flush, close_display };
