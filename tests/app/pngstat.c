/*
 * pngstat.c — prints facts about a PNG for the screenshot test:
 *   pngstat file.png [r,g,b]
 *   -> width height colours background_share [pixels_of_rgb]
 * colours: distinct RGB values (counted up to 65536); background_share: the
 * share of pixels that have the most common colour; pixels_of_rgb: how many
 * pixels have exactly the given colour. Built by
 * test_screenshot.sh with SDL2_image, which the app needs anyway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>

#define TABLE (1 << 18)

int main(int argc, char **argv)
{
    unsigned want_r = 0, want_g = 0, want_b = 0;
    if (argc < 2 || argc > 3 || (argc == 3 && sscanf(argv[2], "%u,%u,%u", &want_r, &want_g, &want_b) != 3)) {
        fprintf(stderr, "usage: pngstat file.png [r,g,b]\n");
        return 2;
    }
    long matching = 0;
    SDL_Surface *img = IMG_Load(argv[1]);
    if (img == NULL) {
        fprintf(stderr, "pngstat: %s\n", IMG_GetError());
        return 1;
    }
    SDL_Surface *s = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_RGBA32, 0);
    if (s == NULL)
        return 1;
    /* Open-addressing set of colours with a count each. */
    Uint32 *keys = calloc(TABLE, sizeof *keys);
    long *counts = calloc(TABLE, sizeof *counts);
    if (keys == NULL || counts == NULL)
        return 1;
    long colours = 0, best = 0;
    for (int y = 0; y < s->h; y++) {
        const Uint8 *row = (const Uint8 *)s->pixels + y * s->pitch;
        for (int x = 0; x < s->w; x++) {
            Uint32 rgb = ((Uint32)row[4 * x] << 16 | (Uint32)row[4 * x + 1] << 8 | row[4 * x + 2]) + 1;
            matching += row[4 * x] == want_r && row[4 * x + 1] == want_g && row[4 * x + 2] == want_b;
            Uint32 h = (rgb * 2654435761u) & (TABLE - 1);
            while (keys[h] != 0 && keys[h] != rgb)
                h = (h + 1) & (TABLE - 1);
            if (keys[h] == 0) {
                if (colours == TABLE / 4)
                    continue;
                keys[h] = rgb;
                colours++;
            }
            if (++counts[h] > best)
                best = counts[h];
        }
    }
    printf("%d %d %ld %.4f", s->w, s->h, colours, (double)best / ((double)s->w * s->h));
    if (argc == 3)
        printf(" %ld", matching);
    printf("\n");
    return 0;
}
