/*
 * event_marks.c — the timeline's mark labels, merged and spaced so that no
 * two overlap (event_marks.h).
 */
#include "event_marks.h"

#include <stdio.h>
#include <string.h>

/* The run's text: "catch", or "catch x3"; its width. */
static void set_text(mark_label *l, const char *text, mark_measure measure, void *ud)
{
    if (l->count > 1)
        snprintf(l->text, sizeof l->text, "%s x%d", text, l->count);
    else
        snprintf(l->text, sizeof l->text, "%s", text);
    l->w = measure(ud, l->text);
}

/* Labels that would end past hi move left, each clear of the next; those
 * pushed left of lo (a bar too short for them all) are left out. Returns
 * how many remain. */
static int fit_right(mark_label *out, int k, float lo, float hi, float gap)
{
    float right = hi;
    int first = 0;
    for (int i = k - 1; i >= 0; i--) {
        if (out[i].x + out[i].w > right)
            out[i].x = right - out[i].w;
        if (out[i].x < lo && first == 0)
            first = i + 1;
        right = out[i].x - gap;
    }
    memmove(out, out + first, (size_t)(k - first) * sizeof *out);
    return k - first;
}

int marks_layout(int n, const float *x, const char *const *label, mark_measure measure, void *ud, float pad,
                 float gap, float lo, float hi, mark_label *out, int cap)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const char *text = label[i];
        if (text == NULL || text[0] == '\0')
            continue;
        float at = x[i] + pad;
        mark_label *last = k > 0 ? &out[k - 1] : NULL;
        if (last != NULL && at < last->x + last->w + gap) {
            /* it would run into the last label: one more of the same run, or none */
            if (strcmp(label[last->first], text) == 0) {
                last->count++;
                set_text(last, text, measure, ud);
            }
            continue;
        }
        if (k == cap)
            break;
        mark_label *l = &out[k++];
        l->first = i;
        l->count = 1;
        l->x = at;
        set_text(l, text, measure, ud);
    }
    return fit_right(out, k, lo, hi, gap);
}
