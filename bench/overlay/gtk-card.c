/* SPDX-License-Identifier: Apache-2.0 */
/* toast-overlay's toolkit candidate 2: GTK 3 with gtk-layer-shell, the
 * same card as raw-card.c (a label with markup on a green box). */
#include <gtk/gtk.h>
#include <gtk-layer-shell.h>
#include <stdio.h>

static gboolean announce(gpointer data) {
    (void)data;
    printf("drawn\n");
    fflush(stdout);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
    gtk_init(&argc, &argv);
    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_layer_init_for_window(GTK_WINDOW(window));
    gtk_layer_set_layer(GTK_WINDOW(window), GTK_LAYER_SHELL_LAYER_OVERLAY);
    gtk_layer_set_anchor(GTK_WINDOW(window), GTK_LAYER_SHELL_EDGE_TOP, TRUE);
    gtk_layer_set_margin(GTK_WINDOW(window), GTK_LAYER_SHELL_EDGE_TOP, 16);
    gtk_widget_set_size_request(window, 400, 80);
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_data(css, "window { background: rgba(33,140,33,0.95); color: white; font: bold 14px Sans; }", -1, NULL);
    gtk_style_context_add_provider_for_screen(gdk_screen_get_default(), GTK_STYLE_PROVIDER(css), GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(label), "✔ <b>CI</b>\nAll 64 tests passed.");
    gtk_container_add(GTK_CONTAINER(window), label);
    gtk_widget_show_all(window);
    g_timeout_add(300, announce, NULL);
    gtk_main();
    return 0;
}
