#pragma once
/* toast-overlay's drawing: Wayland layer-shell surfaces drawn with cairo and
 * pango (bench/overlay/measure.sh measured this against GTK 3). One surface
 * per stack (top, center, bottom), holding its cards, newest nearest the
 * middle. The Swift side decides what is on screen; this only draws it. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct toast_overlay toast_overlay;

/** One card, as the model hands it over (UTF-8, plain text; drawn as text, never as markup). */
typedef struct {
    int64_t id;
    const char *glyph;    /* the role's glyph */
    const char *title;    /* may be NULL */
    const char *message;
    uint32_t color;       /* the role's colour, 0xRRGGBB */
    double progress;      /* 0...1, or negative for none */
    int repeat_count;
} toast_overlay_card;

/** Connects to the Wayland display (WAYLAND_DISPLAY); NULL with a reason in `error`. */
toast_overlay *toast_overlay_open(char *error, int error_size);
/** The display's fd, to poll for reading; `toast_overlay_dispatch` after it is readable. */
int toast_overlay_fd(toast_overlay *overlay);
/** Reads and handles what the compositor sent; -1 when the display is gone. */
int toast_overlay_dispatch(toast_overlay *overlay);
/** Flushes requests; call before polling. -1 when the display is gone. */
int toast_overlay_flush(toast_overlay *overlay);
/** Shows `count` cards in stack `stack` (0 top, 1 center, 2 bottom); 0 cards hides it. */
void toast_overlay_show(toast_overlay *overlay, int stack, const toast_overlay_card *cards, int count);
void toast_overlay_close(toast_overlay *overlay);

#ifdef __cplusplus
}
#endif
