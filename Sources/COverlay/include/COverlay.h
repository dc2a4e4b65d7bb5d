/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
/* toast-overlay's drawing: one surface per stack (top, center, bottom),
 * holding its cards, drawn with cairo and pango (bench/overlay/measure.sh
 * measured this against GTK 3), on Wayland (layer-shell) or X11 (an
 * override-redirect window shaped to its cards). The Swift side decides
 * what is on screen; this draws it, animates cards in and out, and reports
 * clicks. Nothing here reads text as markup unless a card says it is. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct toast_overlay toast_overlay;

enum { TOAST_OVERLAY_MAX_ACTIONS = 16 };

/** How cards look and where they go. Strings are copied. */
typedef struct {
    const char *title_font;     /* Pango font description, e.g. "Sans Bold 11" */
    const char *font;           /* the message's */
    int width;                  /* a card's width, logical pixels */
    int radius, padding, gap;   /* corner radius, inner padding, space between cards */
    int margin_x, margin_y;     /* from the screen's edges */
    int horizontal;             /* 0 left, 1 centre, 2 right */
    double opacity;             /* a card's, 0...1 */
    uint32_t colors[5];         /* by role (plain, info, success, warning, failure), 0xRRGGBB */
    uint32_t text_color;
    int transition;             /* 0 none, 1 fade, 2 slide */
    int transition_ms;
    const char *output;         /* Wayland: the output's name; NULL or "" for the compositor's choice (the focused one) */
} toast_overlay_style;

/** One card, as the model hands it over (UTF-8). */
typedef struct {
    int64_t id;
    int role;                   /* index into style.colors */
    const char *glyph;          /* the role's glyph, or the toast's emoji */
    const char *icon_path;      /* an image file (PNG, JPEG, SVG...), or NULL */
    const uint8_t *pixels;      /* RGBA, or NULL */
    int pixels_width, pixels_height;
    const char *title;          /* may be NULL; plain text */
    const char *message;        /* plain text */
    const char *message_markup; /* the same as Pango markup (from freedesktop body markup), or NULL; drawn instead when it parses */
    double progress;            /* 0...1, or negative for none */
    int spinner;                /* an indeterminate progress: a spinner at `spinner_phase` */
    double spinner_phase;       /* 0...1 */
    int repeat_count;
    const char *countdown;      /* "4s", or NULL */
    const char *notice;         /* a line drawn under the card's text (e.g. "This toast cannot be dismissed"), or NULL */
    int close_button;
    int action_count;
    const char *const *action_labels;
} toast_overlay_card;

/** What a click hit. */
typedef struct {
    int64_t id;
    int target;                 /* 0 the body, 1 the close button, 2 an action button */
    int action;                 /* with target 2: the action's index */
} toast_overlay_click;

/** Connects to the display: backend 0 chooses (Wayland when WAYLAND_DISPLAY
 * is set, else X11 when DISPLAY is), 1 Wayland, 2 X11. NULL with a reason in `error`. */
toast_overlay *toast_overlay_open(int backend, const toast_overlay_style *style, char *error, int error_size);
/** 1 Wayland, 2 X11. */
int toast_overlay_backend(toast_overlay *overlay);
/** Restyles the cards on screen (a reload). */
void toast_overlay_set_style(toast_overlay *overlay, const toast_overlay_style *style);
/** The display's fd, to poll for reading; `toast_overlay_dispatch` after it is readable. */
int toast_overlay_fd(toast_overlay *overlay);
/** Reads and handles what the display sent; -1 when the display is gone. */
int toast_overlay_dispatch(toast_overlay *overlay);
/** Flushes requests; call before polling. -1 when the display is gone. */
int toast_overlay_flush(toast_overlay *overlay);
/** Shows `count` cards in stack `stack` (0 top, 1 center, 2 bottom), top to
 * bottom; cards that were shown and are not in the list leave (animated). */
void toast_overlay_show(toast_overlay *overlay, int stack, const toast_overlay_card *cards, int count);
/** Milliseconds until an animation wants its next frame, or -1. */
int toast_overlay_timeout(toast_overlay *overlay);
/** Draws the animations' next frames. */
void toast_overlay_tick(toast_overlay *overlay);
/** The next click not yet taken; 0 when there is none. */
int toast_overlay_next_click(toast_overlay *overlay, toast_overlay_click *click);
void toast_overlay_close(toast_overlay *overlay);

#ifdef __cplusplus
}
#endif
