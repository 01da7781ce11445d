/*
 * event_marks.h — the timeline's mark labels laid out so that no two
 * overlap (event_marks.c). Plain C: no SDL, no Lua, no fonts (the caller
 * measures text), so it is tested alone (tests/app/c/test_event_marks.c)
 * and any timeline can use it.
 *
 * A run of marks with the same label close together (the hunters'
 * world:mark("catch"), several a second) gets one label, "catch x3", at
 * its first mark; a mark whose label would run into another label gets
 * none (its tick line still shows).
 */
#ifndef STEER_APP_EVENT_MARKS_H
#define STEER_APP_EVENT_MARKS_H

#include <stddef.h>

typedef struct mark_label {
    int first;     ///< the run's first mark (an index into the caller's list)
    int count;     ///< marks in the run
    float x, w;    ///< where the label starts and how wide it is
    char text[64]; ///< the label, with " xN" for a run of N > 1
} mark_label;

/// The width of text in the caller's units (pixels).
typedef float (*mark_measure)(void *ud, const char *text);

/// Labels for n marks at positions x[i] (ascending) with texts label[i]
/// (NULL or "": the mark has no label, an error's for instance); each label
/// is drawn from x[i] + pad. Consecutive labelled marks with the same text
/// whose labels would overlap are one run, "text xN"; a mark that would
/// overlap a label of another text gets none. Every label ends at least gap
/// before the next begins and lies within lo..hi: one that would end past
/// hi moves left (so do those before it, as far as needed); one pushed left
/// of lo is left out. Returns how many labels are in out (at most cap).
int marks_layout(int n, const float *x, const char *const *label, mark_measure measure, void *ud, float pad,
                 float gap, float lo, float hi, mark_label *out, int cap);

#endif
