#ifndef GEOQUERY_CVIPS_SHIM_H
#define GEOQUERY_CVIPS_SHIM_H

// libvips (Debian's libvips-dev) for photos: its calls take NULL-terminated option lists,
// which Swift cannot call, so each call GeoQuery makes is wrapped here with plain arguments.

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

static pthread_once_t geoquery_vips_once = PTHREAD_ONCE_INIT;
static int geoquery_vips_ready = 0;

static void geoquery_vips_start(void) {
    if (VIPS_INIT("geoquery") != 0) return;
    // Only the loaders libvips deems safe for untrusted input (no ImageMagick, no PDF, no SVG);
    // no cache of operations (every photo is seen once); one thread per operation, since the
    // service runs photos on its own worker pool.
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    geoquery_vips_ready = 1;
}

/// Starts libvips once; 0 when it is ready.
static inline int geoquery_vips_init(void) {
    pthread_once(&geoquery_vips_once, geoquery_vips_start);
    return geoquery_vips_ready ? 0 : -1;
}

/// The last error libvips recorded on this thread's operations, cleared after it is read:
/// copied into `buffer` (at most `size` bytes, NUL-terminated).
static inline void geoquery_vips_take_error(char *buffer, size_t size) {
    const char *text = vips_error_buffer();
    if (size == 0) return;
    strncpy(buffer, text ? text : "", size - 1);
    buffer[size - 1] = 0;
    vips_error_clear();
}

/// The width and height an encoded image declares, read from its header without decoding a
/// pixel; the loader's class name (`VipsForeignLoadJpegBuffer`) into `loader`. 0 on success.
static inline int geoquery_vips_header(const void *data, size_t length, int *width, int *height, char *loader, size_t loader_size) {
    const char *found = vips_foreign_find_load_buffer(data, length);
    if (!found) return -1;
    strncpy(loader, found, loader_size - 1);
    loader[loader_size - 1] = 0;
    VipsImage *image = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

/// Decodes the image, turns it upright as its orientation tag says, shrinks it to at most
/// `width` pixels wide (never enlarges), and encodes it again as `suffix` (".jpg", ".png",
/// ".webp") with no metadata at all. The new bytes in `*out` (free with `g_free`), their length
/// and size. 0 on success.
static inline int geoquery_vips_reencode(const void *data, size_t length, int width, const char *suffix,
                                         void **out, size_t *out_length, int *out_width, int *out_height) {
    VipsImage *image = NULL;
    if (vips_thumbnail_buffer((void *)data, length, &image, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL) != 0) {
        return -1;
    }
    int result;
    if (strcmp(suffix, ".jpg") == 0) {
        result = vips_image_write_to_buffer(image, suffix, out, out_length, "strip", TRUE, "Q", 85, "optimize_coding", TRUE, NULL);
    } else {
        result = vips_image_write_to_buffer(image, suffix, out, out_length, "strip", TRUE, NULL);
    }
    *out_width = vips_image_get_width(image);
    *out_height = vips_image_get_height(image);
    g_object_unref(image);
    return result;
}

#endif
