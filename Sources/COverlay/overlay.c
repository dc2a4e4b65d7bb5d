#define _GNU_SOURCE
#include "include/COverlay.h"
#include "layer-shell.h"

#include <cairo.h>
#include <errno.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { WIDTH = 400, PADDING = 12, GAP = 8, MARGIN = 16, MAX_CARDS = 32 };

typedef struct {
    struct toast_overlay *overlay;
    struct wl_surface *surface;
    struct zwlr_layer_surface_v1 *layer;
    toast_overlay_card cards[MAX_CARDS];
    int count;
    int height;
    int configured;
    int configured_height;  /* the height the compositor last configured */
} stack_t_;

struct toast_overlay {
    struct wl_display *display;
    struct wl_compositor *compositor;
    struct wl_shm *shm;
    struct zwlr_layer_shell_v1 *layer_shell;
    stack_t_ stacks[3];
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    toast_overlay *overlay = data;
    (void)version;
    if (!strcmp(interface, wl_compositor_interface.name)) overlay->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, wl_shm_interface.name)) overlay->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (!strcmp(interface, zwlr_layer_shell_v1_interface.name))
        overlay->layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

toast_overlay *toast_overlay_open(char *error, int error_size) {
    toast_overlay *overlay = calloc(1, sizeof *overlay);
    overlay->display = wl_display_connect(NULL);
    if (!overlay->display) {
        snprintf(error, (size_t)error_size, "cannot connect to the Wayland display (WAYLAND_DISPLAY)");
        free(overlay);
        return NULL;
    }
    struct wl_registry *registry = wl_display_get_registry(overlay->display);
    wl_registry_add_listener(registry, &registry_listener, overlay);
    wl_display_roundtrip(overlay->display);
    if (!overlay->compositor || !overlay->shm || !overlay->layer_shell) {
        snprintf(error, (size_t)error_size, "the compositor offers no layer shell (zwlr_layer_shell_v1)");
        wl_display_disconnect(overlay->display);
        free(overlay);
        return NULL;
    }
    return overlay;
}

int toast_overlay_fd(toast_overlay *overlay) { return wl_display_get_fd(overlay->display); }
int toast_overlay_dispatch(toast_overlay *overlay) { return wl_display_dispatch(overlay->display) < 0 ? -1 : 0; }
int toast_overlay_flush(toast_overlay *overlay) {
    if (wl_display_dispatch_pending(overlay->display) < 0) return -1;
    return wl_display_flush(overlay->display) < 0 && errno != EAGAIN ? -1 : 0;
}

/* A card's layout: the heading (glyph, title or message, ×N) and, under a
 * title, the message wrapped. */
static PangoLayout *text_layout(cairo_t *cr, const char *text, const char *font, int width) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_width(layout, width * PANGO_SCALE);
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_height(layout, -4);  /* at most four lines, then "…" */
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    pango_layout_set_text(layout, text, -1);
    return layout;
}

static int card_height(cairo_t *cr, const toast_overlay_card *card, int draw_y, int draw) {
    int inner = WIDTH - 2 * PADDING, y = PADDING, height;
    char heading[1024];
    const char *first = card->title ? card->title : card->message;
    if (card->repeat_count > 1) snprintf(heading, sizeof heading, "%s  %s  ×%d", card->glyph, first, card->repeat_count);
    else snprintf(heading, sizeof heading, "%s  %s", card->glyph, first);
    PangoLayout *head = text_layout(cr, heading, "Sans Bold 11", inner);
    pango_layout_get_pixel_size(head, NULL, &height);
    if (draw) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_move_to(cr, PADDING, draw_y + y);
        pango_cairo_show_layout(cr, head);
    }
    g_object_unref(head);
    y += height;
    if (card->title) {
        PangoLayout *body = text_layout(cr, card->message, "Sans 10", inner);
        pango_layout_get_pixel_size(body, NULL, &height);
        if (draw) {
            cairo_move_to(cr, PADDING, draw_y + y + 2);
            pango_cairo_show_layout(cr, body);
        }
        g_object_unref(body);
        y += height + 2;
    }
    if (card->progress >= 0) {
        if (draw) {
            double fraction = card->progress > 1 ? 1 : card->progress;
            cairo_set_source_rgba(cr, 1, 1, 1, 0.3);
            cairo_rectangle(cr, PADDING, draw_y + y + 6, inner, 6);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_rectangle(cr, PADDING, draw_y + y + 6, inner * fraction, 6);
            cairo_fill(cr);
        }
        y += 12;
    }
    return y + PADDING;
}

static void buffer_release(void *data, struct wl_buffer *buffer) {
    (void)data;
    wl_buffer_destroy(buffer);
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void draw(toast_overlay *overlay, stack_t_ *stack) {
    int width = WIDTH, height = stack->height, stride = width * 4, size = stride * height;
    int fd = memfd_create("toast-overlay", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) { if (fd >= 0) close(fd); return; }
    unsigned char *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) { close(fd); return; }
    struct wl_shm_pool *pool = wl_shm_create_pool(overlay->shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_buffer_add_listener(buffer, &buffer_listener, NULL);
    cairo_surface_t *target = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, stride);
    cairo_t *cr = cairo_create(target);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, 0, 0, 0, 0);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    int y = 0;
    for (int index = 0; index < stack->count; index++) {
        const toast_overlay_card *card = &stack->cards[index];
        int h = card_height(cr, card, y, 0);
        double r = ((card->color >> 16) & 0xFF) / 255.0, g = ((card->color >> 8) & 0xFF) / 255.0, b = (card->color & 0xFF) / 255.0;
        cairo_set_source_rgba(cr, r, g, b, 0.96);
        cairo_new_sub_path(cr);
        double radius = 8;
        cairo_arc(cr, width - radius, y + radius, radius, -G_PI / 2, 0);
        cairo_arc(cr, width - radius, y + h - radius, radius, 0, G_PI / 2);
        cairo_arc(cr, radius, y + h - radius, radius, G_PI / 2, G_PI);
        cairo_arc(cr, radius, y + radius, radius, G_PI, 3 * G_PI / 2);
        cairo_close_path(cr);
        cairo_fill(cr);
        card_height(cr, card, y, 1);
        y += h + GAP;
    }
    cairo_destroy(cr);
    cairo_surface_flush(target);
    cairo_surface_destroy(target);
    munmap(pixels, (size_t)size);
    wl_surface_attach(stack->surface, buffer, 0, 0);
    wl_surface_damage(stack->surface, 0, 0, width, height);
    wl_surface_commit(stack->surface);
}

static void configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial, uint32_t width, uint32_t height) {
    stack_t_ *stack = data;
    (void)width;
    zwlr_layer_surface_v1_ack_configure(layer, serial);
    stack->configured = 1;
    stack->configured_height = (int)height;
    /* A buffer of the size asked for goes only after its configure
     * (layer-shell's rule): drawn here, once acknowledged. */
    if (stack->count > 0) draw(stack->overlay, stack);
}
static void closed(void *data, struct zwlr_layer_surface_v1 *layer) { (void)data; (void)layer; }
static const struct zwlr_layer_surface_v1_listener layer_listener = { configure, closed };

static void free_cards(stack_t_ *stack) {
    for (int index = 0; index < stack->count; index++) {
        free((char *)stack->cards[index].glyph);
        free((char *)stack->cards[index].title);
        free((char *)stack->cards[index].message);
    }
    stack->count = 0;
}

void toast_overlay_show(toast_overlay *overlay, int which, const toast_overlay_card *cards, int count) {
    if (which < 0 || which > 2) return;
    stack_t_ *stack = &overlay->stacks[which];
    free_cards(stack);
    if (count > MAX_CARDS) count = MAX_CARDS;
    if (count == 0) {
        if (stack->layer) {
            wl_proxy_marshal_flags((struct wl_proxy *)stack->layer, 7, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
            wl_surface_destroy(stack->surface);
            stack->layer = NULL;
            stack->surface = NULL;
            stack->configured = 0;
        }
        return;
    }
    for (int index = 0; index < count; index++) {
        stack->cards[index] = cards[index];
        stack->cards[index].glyph = strdup(cards[index].glyph ? cards[index].glyph : "");
        stack->cards[index].title = cards[index].title ? strdup(cards[index].title) : NULL;
        stack->cards[index].message = strdup(cards[index].message ? cards[index].message : "");
    }
    stack->count = count;
    /* The height the cards take. */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(scratch);
    int height = 0;
    for (int index = 0; index < count; index++) height += card_height(cr, &stack->cards[index], 0, 0) + (index ? GAP : 0);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    stack->height = height;
    if (!stack->layer) {
        stack->surface = wl_compositor_create_surface(overlay->compositor);
        stack->layer = zwlr_layer_shell_v1_get_layer_surface(overlay->layer_shell, stack->surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, "toast-overlay");
        uint32_t anchor = which == 0 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP : which == 2 ? ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM : 0;
        zwlr_layer_surface_v1_set_anchor(stack->layer, anchor);
        zwlr_layer_surface_v1_set_margin(stack->layer, MARGIN, 0, MARGIN, 0);
        zwlr_layer_surface_v1_add_listener(stack->layer, &layer_listener, stack);
    }
    stack->overlay = overlay;
    if (stack->configured && stack->configured_height == height) {
        draw(overlay, stack);  /* the same size: no configure comes, draw now */
    } else {
        /* A new size: commit it, and draw once the compositor configures it. */
        zwlr_layer_surface_v1_set_size(stack->layer, WIDTH, (uint32_t)height);
        wl_surface_commit(stack->surface);
    }
}

void toast_overlay_close(toast_overlay *overlay) {
    for (int which = 0; which < 3; which++) free_cards(&overlay->stacks[which]);
    wl_display_disconnect(overlay->display);
    free(overlay);
}
