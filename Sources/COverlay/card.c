/* SPDX-License-Identifier: Apache-2.0 */
/* A card: laid out and drawn with pango and cairo, the same code measuring
 * and painting, so what is measured is what is drawn.
 *
 *   [icon] Title                      ×3  4s  [×]
 *          The message, wrapped, at most six lines, then "…"
 *          A notice, in italics
 *          [=========40%=====               ]
 *          [ Action ] [ Action ] [ Action ]
 */
#define _GNU_SOURCE
#include "internal.h"

#include <fcntl.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { COLUMN = ICON_SIZE, COLUMN_GAP = 10, CLOSE = 18, BAR = 6, BUTTON_HEIGHT = 26, BUTTON_GAP = 6, BUTTONS_PER_ROW = 3 };

int64_t ov_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void set_color(cairo_t *cr, uint32_t color, double alpha) {
    cairo_set_source_rgba(cr, ((color >> 16) & 0xFF) / 255.0, ((color >> 8) & 0xFF) / 255.0, (color & 0xFF) / 255.0, alpha);
}

static void rounded(cairo_t *cr, double x, double y, double width, double height, double radius) {
    if (radius > height / 2) radius = height / 2;
    if (radius > width / 2) radius = width / 2;
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + width - radius, y + radius, radius, -G_PI / 2, 0);
    cairo_arc(cr, x + width - radius, y + height - radius, radius, 0, G_PI / 2);
    cairo_arc(cr, x + radius, y + height - radius, radius, G_PI / 2, G_PI);
    cairo_arc(cr, x + radius, y + radius, radius, G_PI, 3 * G_PI / 2);
    cairo_close_path(cr);
}

void ov_card_path(cairo_t *cr, const toast_overlay_style *style, double y, double height) {
    rounded(cr, 0, y, style->width, height, style->radius);
}

/* A layout of `text` in `font`, `width` wide, at most `lines` lines then "…".
 * Markup only when `markup` is given and parses; otherwise the plain text. */
static PangoLayout *text_layout(cairo_t *cr, const char *text, const char *markup, const char *font, int width, int lines) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_width(layout, (width > 1 ? width : 1) * PANGO_SCALE);
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_height(layout, -lines);
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    if (markup && pango_parse_markup(markup, -1, 0, NULL, NULL, NULL, NULL)) pango_layout_set_markup(layout, markup, -1);
    else pango_layout_set_text(layout, text ? text : "", -1);
    return layout;
}

static int show_text(cairo_t *cr, PangoLayout *layout, double x, double y, int draw) {
    int height;
    pango_layout_get_pixel_size(layout, NULL, &height);
    if (draw) {
        cairo_move_to(cr, x, y);
        pango_cairo_show_layout(cr, layout);
    }
    g_object_unref(layout);
    return height;
}

static void draw_icon(cairo_t *cr, cairo_surface_t *icon, double x, double y) {
    int width = cairo_image_surface_get_width(icon), height = cairo_image_surface_get_height(icon);
    double scale = (double)ICON_SIZE / (width > height ? width : height);
    cairo_save(cr);
    cairo_translate(cr, x + (ICON_SIZE - width * scale) / 2, y + (ICON_SIZE - height * scale) / 2);
    cairo_scale(cr, scale, scale);
    cairo_set_source_surface(cr, icon, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
}

static void draw_spinner(cairo_t *cr, uint32_t color, double phase, double x, double y) {
    double center = ICON_SIZE / 2.0, radius = ICON_SIZE / 2.0 - 4;
    cairo_set_line_width(cr, 3);
    set_color(cr, color, 0.3);
    cairo_arc(cr, x + center, y + center, radius, 0, 2 * G_PI);
    cairo_stroke(cr);
    set_color(cr, color, 1);
    double start = phase * 2 * G_PI;
    cairo_arc(cr, x + center, y + center, radius, start, start + G_PI / 2);
    cairo_stroke(cr);
}

/* Lays the card out from y = 0 and, when `cr` draws (`draw`), paints it at `top`
 * and records its parts. Returns its height. */
static int lay_out(cairo_t *cr, const toast_overlay_style *style, ov_entry *entry, double top, int draw) {
    const toast_overlay_card *card = &entry->card;
    int padding = style->padding, width = style->width;
    int text_x = padding + COLUMN + COLUMN_GAP;
    int right = width - padding - (card->close_button ? CLOSE + 6 : 0);
    double y = padding;
    uint32_t text = style->text_color;

    if (draw) {
        if (card->spinner) draw_spinner(cr, text, card->spinner_phase, padding, top + padding);
        else if (entry->icon) draw_icon(cr, entry->icon, padding, top + padding);
        else {
            set_color(cr, text, 1);
            PangoLayout *glyph = text_layout(cr, card->glyph, NULL, "Sans 18", COLUMN, 1);
            pango_layout_set_alignment(glyph, PANGO_ALIGN_CENTER);
            int height;
            pango_layout_get_pixel_size(glyph, NULL, &height);
            show_text(cr, glyph, padding, top + padding + (ICON_SIZE - height) / 2.0, 1);
        }
    }
    /* ×N and the countdown, right of the heading. */
    char extra[64] = "";
    if (card->repeat_count > 1) snprintf(extra, sizeof extra, "×%d", card->repeat_count);
    if (card->countdown && *card->countdown)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s%.16s", *extra ? "  " : "", card->countdown);
    int extra_width = 0;
    if (*extra) {
        PangoLayout *layout = text_layout(cr, extra, NULL, style->font, width, 1);
        pango_layout_get_pixel_size(layout, &extra_width, NULL);
        if (draw) {
            set_color(cr, text, 0.8);
            show_text(cr, layout, right - extra_width, top + y + 1, 1);
        } else g_object_unref(layout);
        extra_width += 8;
    }
    if (card->close_button) {
        entry->close = (ov_rect){ width - padding - CLOSE, top + padding - 2, CLOSE + 4, CLOSE + 4 };
        if (draw) {
            double x = width - padding - CLOSE + 4, cy = top + padding + 4, size = CLOSE - 8;
            set_color(cr, text, 0.9);
            cairo_set_line_width(cr, 2);
            cairo_move_to(cr, x, cy);
            cairo_line_to(cr, x + size, cy + size);
            cairo_move_to(cr, x + size, cy);
            cairo_line_to(cr, x, cy + size);
            cairo_stroke(cr);
        }
    }
    set_color(cr, text, 1);
    if (card->title) {
        y += show_text(cr, text_layout(cr, card->title, NULL, style->title_font, right - text_x - extra_width, 2), text_x, top + y, draw);
        y += 2;
        y += show_text(cr, text_layout(cr, card->message, card->message_markup, style->font, right - text_x, 6), text_x, top + y, draw);
    } else {
        y += show_text(cr, text_layout(cr, card->message, card->message_markup, style->font, right - text_x - extra_width, 6), text_x, top + y, draw);
    }
    if (card->notice) {
        set_color(cr, text, 0.85);
        char font[160];
        snprintf(font, sizeof font, "%s Italic", style->font);
        y += 2 + show_text(cr, text_layout(cr, card->notice, NULL, font, right - text_x, 2), text_x, top + y + 2, draw);
    }
    if (y < padding + ICON_SIZE) y = padding + ICON_SIZE;
    if (card->progress >= 0 && !card->spinner) {
        if (draw) {
            double fraction = card->progress > 1 ? 1 : card->progress, track = width - text_x - padding;
            set_color(cr, text, 0.3);
            cairo_rectangle(cr, text_x, top + y + 6, track, BAR);
            cairo_fill(cr);
            set_color(cr, text, 1);
            cairo_rectangle(cr, text_x, top + y + 6, track * fraction, BAR);
            cairo_fill(cr);
        }
        y += BAR + 8;
    }
    int actions = card->action_count < TOAST_OVERLAY_MAX_ACTIONS ? card->action_count : TOAST_OVERLAY_MAX_ACTIONS;
    for (int index = 0; index < actions; index += BUTTONS_PER_ROW) {
        int in_row = actions - index < BUTTONS_PER_ROW ? actions - index : BUTTONS_PER_ROW;
        double span = width - text_x - padding, button = (span - BUTTON_GAP * (in_row - 1)) / in_row;
        y += BUTTON_GAP;
        for (int column = 0; column < in_row; column++) {
            ov_rect *rect = &entry->actions[index + column];
            *rect = (ov_rect){ text_x + column * (button + BUTTON_GAP), top + y, button, BUTTON_HEIGHT };
            if (!draw) continue;
            set_color(cr, text, 0.22);
            rounded(cr, rect->x, rect->y, rect->width, rect->height, 4);
            cairo_fill(cr);
            set_color(cr, text, 1);
            PangoLayout *label = text_layout(cr, card->action_labels[index + column], NULL, style->font, (int)button - 8, 1);
            pango_layout_set_alignment(label, PANGO_ALIGN_CENTER);
            int label_height;
            pango_layout_get_pixel_size(label, NULL, &label_height);
            show_text(cr, label, rect->x + 4, rect->y + (BUTTON_HEIGHT - label_height) / 2.0, 1);
        }
        y += BUTTON_HEIGHT;
    }
    return (int)y + padding;
}

static cairo_t *scratch(void) {
    static cairo_t *cr;
    if (!cr) {
        cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
        cr = cairo_create(surface);
        cairo_surface_destroy(surface);
    }
    return cr;
}

int ov_card_height(const toast_overlay_style *style, ov_entry *entry) { return lay_out(scratch(), style, entry, 0, 0); }

void ov_card_draw(cairo_t *cr, const toast_overlay_style *style, ov_entry *entry, double y, double alpha) {
    cairo_push_group(cr);
    set_color(cr, style->colors[entry->card.role >= 0 && entry->card.role < 5 ? entry->card.role : 0], style->opacity);
    ov_card_path(cr, style, y, entry->height);
    cairo_fill(cr);
    lay_out(cr, style, entry, y, 1);
    cairo_pop_group_to_source(cr);
    cairo_paint_with_alpha(cr, alpha);
    entry->body = (ov_rect){ 0, y, style->width, entry->height };
}

cairo_surface_t *ov_icon_from_pixels(const uint8_t *rgba, int width, int height) {
    if (!rgba || width <= 0 || height <= 0 || width > 256 || height > 256) return NULL;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    unsigned char *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int row = 0; row < height; row++) {
        uint32_t *out = (uint32_t *)(data + row * stride);
        for (int column = 0; column < width; column++) {
            const uint8_t *pixel = rgba + ((size_t)row * width + column) * 4;
            uint32_t a = pixel[3];
            out[column] = a << 24 | (pixel[0] * a / 255) << 16 | (pixel[1] * a / 255) << 8 | (pixel[2] * a / 255);
        }
    }
    cairo_surface_mark_dirty(surface);
    return surface;
}

/* An image file, decoded only if it is a regular file of at most 16 MiB
 * whose picture is at most 4096 × 4096, scaled to ICON_SIZE × 2 (HiDPI).
 * The path came from another program: opened without blocking (a FIFO
 * cannot hang the overlay) and never followed further than open(2) goes. */
enum { MAX_FILE = 16 << 20, MAX_SIDE = 4096, LOADED = ICON_SIZE * 2 };

static void size_prepared(GdkPixbufLoader *loader, int width, int height, gpointer data) {
    int *refused = data;
    if (width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE) {
        *refused = 1;
        return;
    }
    double scale = (double)LOADED / (width > height ? width : height);
    if (scale < 1) gdk_pixbuf_loader_set_size(loader, width * scale < 1 ? 1 : (int)(width * scale), height * scale < 1 ? 1 : (int)(height * scale));
}

cairo_surface_t *ov_icon_from_file(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return NULL;
    struct stat info;
    if (fstat(fd, &info) < 0 || !S_ISREG(info.st_mode) || info.st_size > MAX_FILE) {
        close(fd);
        return NULL;
    }
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    int refused = 0;
    g_signal_connect(loader, "size-prepared", G_CALLBACK(size_prepared), &refused);
    unsigned char chunk[65536];
    ssize_t got;
    int failed = 0;
    while (!refused && !failed && (got = read(fd, chunk, sizeof chunk)) > 0) failed = !gdk_pixbuf_loader_write(loader, chunk, (gsize)got, NULL);
    close(fd);
    failed |= !gdk_pixbuf_loader_close(loader, NULL);
    GdkPixbuf *pixbuf = refused || failed ? NULL : gdk_pixbuf_loader_get_pixbuf(loader);
    cairo_surface_t *surface = NULL;
    if (pixbuf && gdk_pixbuf_get_bits_per_sample(pixbuf) == 8 && gdk_pixbuf_get_width(pixbuf) <= 256 && gdk_pixbuf_get_height(pixbuf) <= 256) {
        int width = gdk_pixbuf_get_width(pixbuf), height = gdk_pixbuf_get_height(pixbuf);
        int channels = gdk_pixbuf_get_n_channels(pixbuf), stride = gdk_pixbuf_get_rowstride(pixbuf);
        const guchar *pixels = gdk_pixbuf_read_pixels(pixbuf);
        uint8_t *rgba = malloc((size_t)width * height * 4);
        for (int row = 0; row < height; row++)
            for (int column = 0; column < width; column++) {
                const guchar *in = pixels + row * stride + column * channels;
                uint8_t *out = rgba + ((size_t)row * width + column) * 4;
                out[0] = in[0], out[1] = in[1], out[2] = in[2], out[3] = channels == 4 ? in[3] : 255;
            }
        surface = ov_icon_from_pixels(rgba, width, height);
        free(rgba);
    }
    g_object_unref(loader);
    return surface;
}
