/* SPDX-License-Identifier: Apache-2.0 */
/* A stack's cards: which stay, which arrive and which leave (kept in their
 * place while they animate out), where each is drawn, and what a click hit. */
#define _GNU_SOURCE
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far in its transition a card is: 0 (not there) ... 1 (fully there). */
static double presence(const toast_overlay_style *style, const ov_entry *entry, int64_t now) {
    if (style->transition == 0 || style->transition_ms <= 0) return entry->left_ms ? 0 : 1;
    double in = (double)(now - entry->entered_ms) / style->transition_ms;
    double value = in < 0 ? 0 : in > 1 ? 1 : in;
    if (entry->left_ms) {
        double out = 1 - (double)(now - entry->left_ms) / style->transition_ms;
        if (out < value) value = out < 0 ? 0 : out;
    }
    /* ease out */
    return 1 - (1 - value) * (1 - value);
}

void ov_stack_paint(toast_overlay *overlay, int which, cairo_t *cr, int64_t now) {
    const toast_overlay_style *style = &overlay->style;
    ov_stack *stack = &overlay->stacks[which];
    cairo_save(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, 0, 0, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    double y = 0;
    for (int index = 0; index < stack->count; index++) {
        ov_entry *entry = stack->entries[index];
        double shown = presence(style, entry, now), offset = 0;
        if (style->transition == 2 && which != 1) offset = (which == 0 ? -1 : 1) * (1 - shown) * entry->height * 0.6;
        cairo_save(cr);
        cairo_rectangle(cr, 0, y, style->width, entry->height);
        cairo_clip(cr);
        ov_card_draw(cr, style, entry, y + offset, overlay->opaque ? 1 : shown);
        cairo_restore(cr);
        y += entry->height + style->gap;
    }
}

int ov_stack_rects(toast_overlay *overlay, int which, ov_rect *rects, int capacity) {
    ov_stack *stack = &overlay->stacks[which];
    double y = 0;
    int count = 0;
    for (int index = 0; index < stack->count && count < capacity; index++) {
        rects[count++] = (ov_rect){ 0, y, overlay->style.width, stack->entries[index]->height };
        y += stack->entries[index]->height + overlay->style.gap;
    }
    return count;
}

static int inside(ov_rect rect, double x, double y) {
    return x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
}

void ov_stack_click(toast_overlay *overlay, int which, double x, double y) {
    ov_stack *stack = &overlay->stacks[which];
    if (overlay->click_count == (int)(sizeof overlay->clicks / sizeof overlay->clicks[0])) return;
    for (int index = 0; index < stack->count; index++) {
        ov_entry *entry = stack->entries[index];
        if (entry->left_ms || !inside(entry->body, x, y)) continue;
        toast_overlay_click click = { entry->card.id, 0, 0 };
        if (entry->card.close_button && inside(entry->close, x, y)) click.target = 1;
        for (int action = 0; action < entry->card.action_count && action < TOAST_OVERLAY_MAX_ACTIONS; action++)
            if (inside(entry->actions[action], x, y)) click.target = 2, click.action = action;
        overlay->clicks[overlay->click_count++] = click;
        return;
    }
}

void ov_stack_origin(toast_overlay *overlay, int which, int screen_width, int screen_height, int *x, int *y) {
    const toast_overlay_style *style = &overlay->style;
    int height = overlay->stacks[which].height;
    *x = style->horizontal == 0 ? style->margin_x : style->horizontal == 2 ? screen_width - style->width - style->margin_x : (screen_width - style->width) / 2;
    *y = which == 0 ? style->margin_y : which == 2 ? screen_height - height - style->margin_y : (screen_height - height) / 2;
}

/* Entries: deep copies of the model's cards. */
static char *copy(const char *text) { return text ? strdup(text) : NULL; }

static void release(ov_entry *entry) {
    free((char *)entry->card.glyph);
    free((char *)entry->card.icon_path);
    free((uint8_t *)entry->card.pixels);
    free((char *)entry->card.title);
    free((char *)entry->card.message);
    free((char *)entry->card.message_markup);
    free((char *)entry->card.countdown);
    free((char *)entry->card.notice);
    for (int index = 0; index < TOAST_OVERLAY_MAX_ACTIONS; index++) free(entry->labels[index]);
    memset(entry->labels, 0, sizeof entry->labels);
}

static void destroy(ov_entry *entry) {
    release(entry);
    free(entry->icon_key);
    if (entry->icon) cairo_surface_destroy(entry->icon);
    free(entry);
}

/* Fills `entry` from `card`, loading its icon again only when it changed. */
static void fill(ov_entry *entry, const toast_overlay_card *card) {
    release(entry);
    entry->card = *card;
    entry->card.glyph = copy(card->glyph ? card->glyph : "");
    entry->card.icon_path = copy(card->icon_path);
    entry->card.title = copy(card->title);
    entry->card.message = copy(card->message ? card->message : "");
    entry->card.message_markup = copy(card->message_markup);
    entry->card.countdown = copy(card->countdown);
    entry->card.notice = copy(card->notice);
    entry->card.pixels = NULL;
    int actions = card->action_count < TOAST_OVERLAY_MAX_ACTIONS ? card->action_count : TOAST_OVERLAY_MAX_ACTIONS;
    for (int index = 0; index < actions; index++) entry->labels[index] = copy(card->action_labels[index] ? card->action_labels[index] : "");
    entry->card.action_count = actions;
    entry->card.action_labels = (const char *const *)entry->labels;
    /* The icon's key: its path, or its pixels' size and a checksum. */
    char key[4200];
    if (card->pixels && card->pixels_width > 0 && card->pixels_height > 0) {
        uint32_t sum = 2166136261u;
        for (size_t index = 0; index < (size_t)card->pixels_width * card->pixels_height * 4; index++) sum = (sum ^ card->pixels[index]) * 16777619u;
        snprintf(key, sizeof key, "pixels:%dx%d:%08x", card->pixels_width, card->pixels_height, sum);
    } else if (card->icon_path) snprintf(key, sizeof key, "file:%s", card->icon_path);
    else key[0] = 0;
    if (!entry->icon_key || strcmp(entry->icon_key, key)) {
        if (entry->icon) cairo_surface_destroy(entry->icon);
        entry->icon = NULL;
        if (card->pixels && card->pixels_width > 0) entry->icon = ov_icon_from_pixels(card->pixels, card->pixels_width, card->pixels_height);
        else if (card->icon_path) entry->icon = ov_icon_from_file(card->icon_path);
        free(entry->icon_key);
        entry->icon_key = strdup(key);
    }
}

static void relayout(toast_overlay *overlay, ov_stack *stack) {
    int height = 0;
    for (int index = 0; index < stack->count; index++) {
        stack->entries[index]->height = ov_card_height(&overlay->style, stack->entries[index]);
        height += stack->entries[index]->height + (index ? overlay->style.gap : 0);
    }
    stack->height = height;
}

void toast_overlay_show(toast_overlay *overlay, int which, const toast_overlay_card *cards, int count) {
    if (which < 0 || which > 2) return;
    if (count > MAX_CARDS) count = MAX_CARDS;
    ov_stack *stack = &overlay->stacks[which];
    int64_t now = ov_now_ms();
    ov_entry *next[MAX_CARDS * 2];
    int used[MAX_CARDS * 2] = { 0 };
    int total = 0;
    for (int index = 0; index < count; index++) {
        ov_entry *entry = NULL;
        for (int old = 0; old < stack->count && !entry; old++)
            if (!used[old] && !stack->entries[old]->left_ms && stack->entries[old]->card.id == cards[index].id) {
                entry = stack->entries[old];
                used[old] = 1;
            }
        if (!entry) {
            entry = calloc(1, sizeof *entry);
            entry->entered_ms = now;
        }
        fill(entry, &cards[index]);
        next[total++] = entry;
    }
    /* The cards that went: they leave from where they were (or at once, without transitions). */
    for (int old = 0; old < stack->count; old++) {
        if (used[old]) continue;
        ov_entry *entry = stack->entries[old];
        if (overlay->style.transition == 0 || total == MAX_CARDS * 2) {
            destroy(entry);
            continue;
        }
        if (!entry->left_ms) entry->left_ms = now;
        int at = old < total ? old : total;
        memmove(&next[at + 1], &next[at], sizeof next[0] * (size_t)(total - at));
        next[at] = entry;
        total++;
    }
    memcpy(stack->entries, next, sizeof next[0] * (size_t)total);
    stack->count = total;
    relayout(overlay, stack);
    overlay->ops->present(overlay, which);
}

/* The frames animations want. */
static int animating(toast_overlay *overlay, const ov_entry *entry, int64_t now) {
    const toast_overlay_style *style = &overlay->style;
    if (style->transition == 0) return 0;
    return now - entry->entered_ms < style->transition_ms || entry->left_ms;
}

int toast_overlay_timeout(toast_overlay *overlay) {
    int64_t now = ov_now_ms();
    for (int which = 0; which < 3; which++)
        for (int index = 0; index < overlay->stacks[which].count; index++)
            if (animating(overlay, overlay->stacks[which].entries[index], now)) return 16;
    return -1;
}

void toast_overlay_tick(toast_overlay *overlay) {
    int64_t now = ov_now_ms();
    for (int which = 0; which < 3; which++) {
        ov_stack *stack = &overlay->stacks[which];
        int moving = 0, kept = 0, removed = 0;
        for (int index = 0; index < stack->count; index++) {
            ov_entry *entry = stack->entries[index];
            if (entry->left_ms && now - entry->left_ms >= overlay->style.transition_ms) {
                destroy(entry);
                removed = 1;
                continue;
            }
            moving |= animating(overlay, entry, now);
            stack->entries[kept++] = entry;
        }
        stack->count = kept;
        if (removed) relayout(overlay, stack);
        if (moving || removed) overlay->ops->present(overlay, which);
    }
}

int toast_overlay_next_click(toast_overlay *overlay, toast_overlay_click *click) {
    if (overlay->click_count == 0) return 0;
    *click = overlay->clicks[0];
    memmove(&overlay->clicks[0], &overlay->clicks[1], sizeof overlay->clicks[0] * (size_t)(--overlay->click_count));
    return 1;
}

static void copy_style(toast_overlay_style *into, const toast_overlay_style *style) {
    free((char *)into->title_font);
    free((char *)into->font);
    free((char *)into->output);
    *into = *style;
    into->title_font = strdup(style->title_font && *style->title_font ? style->title_font : "Sans Bold 11");
    into->font = strdup(style->font && *style->font ? style->font : "Sans 10");
    into->output = style->output && *style->output ? strdup(style->output) : NULL;
    if (into->width < 120) into->width = 120;
    if (into->width > 2000) into->width = 2000;
    if (into->opacity < 0.05 || into->opacity > 1) into->opacity = 1;
    if (into->transition_ms < 0 || into->transition_ms > 2000) into->transition_ms = 150;
}

toast_overlay *toast_overlay_open(int backend, const toast_overlay_style *style, char *error, int error_size) {
    toast_overlay *overlay = calloc(1, sizeof *overlay);
    copy_style(&overlay->style, style);
    const char *wayland = getenv("WAYLAND_DISPLAY"), *x11 = getenv("DISPLAY");
    if (backend == 0) backend = wayland && *wayland ? 1 : x11 && *x11 ? 2 : 1;
    overlay->backend = backend;
    overlay->ops = backend == 1 ? &ov_wayland : &ov_x11;
    overlay->impl = backend == 1 ? ov_wayland_open(overlay, error, error_size) : ov_x11_open(overlay, error, error_size);
    if (!overlay->impl) {
        free((char *)overlay->style.title_font);
        free((char *)overlay->style.font);
        free((char *)overlay->style.output);
        free(overlay);
        return NULL;
    }
    return overlay;
}

int toast_overlay_backend(toast_overlay *overlay) { return overlay->backend; }

void toast_overlay_set_style(toast_overlay *overlay, const toast_overlay_style *style) {
    copy_style(&overlay->style, style);
    for (int which = 0; which < 3; which++) {
        relayout(overlay, &overlay->stacks[which]);
        overlay->ops->present(overlay, which);
    }
}

int toast_overlay_fd(toast_overlay *overlay) { return overlay->ops->fd(overlay); }
int toast_overlay_dispatch(toast_overlay *overlay) { return overlay->ops->dispatch(overlay); }
int toast_overlay_flush(toast_overlay *overlay) { return overlay->ops->flush(overlay); }

void toast_overlay_close(toast_overlay *overlay) {
    overlay->ops->close(overlay);
    for (int which = 0; which < 3; which++)
        for (int index = 0; index < overlay->stacks[which].count; index++) destroy(overlay->stacks[which].entries[index]);
    free((char *)overlay->style.title_font);
    free((char *)overlay->style.font);
    free((char *)overlay->style.output);
    free(overlay);
}
