/* SPDX-License-Identifier: Apache-2.0 */
/* What the backends (wayland.c, x11.c) share with the stacks (stack.c) and
 * the cards (card.c). Not part of the module's interface. */
#pragma once
#include "include/COverlay.h"

#include <cairo.h>
#include <stdint.h>

enum { MAX_CARDS = 32, ICON_SIZE = 32 };

typedef struct { double x, y, width, height; } ov_rect;

/** A card on screen: the model's card (deep copy), its icon, its laid-out
 * height, its animation and where its parts were last drawn. */
typedef struct {
    toast_overlay_card card;
    char *labels[TOAST_OVERLAY_MAX_ACTIONS];
    char *icon_key;              /* what `icon` was loaded from */
    cairo_surface_t *icon;
    int height;
    int64_t entered_ms, left_ms; /* left_ms is 0 while the card stays */
    ov_rect body, close, actions[TOAST_OVERLAY_MAX_ACTIONS];
} ov_entry;

typedef struct {
    ov_entry *entries[MAX_CARDS * 2];
    int count;
    int height;                  /* logical height of every card and the gaps */
} ov_stack;

typedef struct ov_backend {
    /* The stack's cards or size changed (height 0: nothing to show). */
    void (*present)(toast_overlay *overlay, int which);
    int (*fd)(toast_overlay *overlay);
    int (*dispatch)(toast_overlay *overlay);
    int (*flush)(toast_overlay *overlay);
    void (*close)(toast_overlay *overlay);
} ov_backend;

struct toast_overlay {
    int backend;
    int opaque;                  /* nothing blends (X11 without a compositing manager): no fades */
    toast_overlay_style style;
    ov_stack stacks[3];
    toast_overlay_click clicks[32];
    int click_count;
    const ov_backend *ops;
    void *impl;
};

int64_t ov_now_ms(void);

/* card.c */
int ov_card_height(const toast_overlay_style *style, ov_entry *entry);
void ov_card_draw(cairo_t *cr, const toast_overlay_style *style, ov_entry *entry, double y, double alpha);
void ov_card_path(cairo_t *cr, const toast_overlay_style *style, double y, double height);
cairo_surface_t *ov_icon_from_pixels(const uint8_t *rgba, int width, int height);
cairo_surface_t *ov_icon_from_file(const char *path);

/* stack.c */
/** Paints stack `which` into `cr` (logical pixels, cleared first) at time `now`, and records where each part went. */
void ov_stack_paint(toast_overlay *overlay, int which, cairo_t *cr, int64_t now);
/** Outlines every card of the stack (for a shape or an input region) as rectangles; returns how many. */
int ov_stack_rects(toast_overlay *overlay, int which, ov_rect *rects, int capacity);
/** A press at (x, y) in stack `which`'s surface: queues what it hit. */
void ov_stack_click(toast_overlay *overlay, int which, double x, double y);
/** Where the stack's surface goes on a screen `width` × `height` (X11 places its own windows). */
void ov_stack_origin(toast_overlay *overlay, int which, int screen_width, int screen_height, int *x, int *y);

extern const ov_backend ov_wayland;
extern const ov_backend ov_x11;
void *ov_wayland_open(toast_overlay *overlay, char *error, int error_size);
void *ov_x11_open(toast_overlay *overlay, char *error, int error_size);
