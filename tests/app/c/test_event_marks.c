/*
 * test_event_marks.c — the timeline's mark labels (app/event_marks.c): a
 * burst of same-named marks becomes one "catch xN" label, labels of other
 * names never overlap, and no label overlaps another for any spacing.
 */
#include "event_marks.h"
#include "test_util.h"

/* 6 units a character, as a small fixed-width font */
static float measure(void *ud, const char *s)
{
    (void)ud;
    return 6.0f * (float)strlen(s);
}

static void no_overlap(const mark_label *l, int k, float gap)
{
    for (int i = 1; i < k; i++)
        if (!CHECK(l[i].x >= l[i - 1].x + l[i - 1].w + gap, "label %d at %g overlaps \"%s\" (%g..%g)", i,
                   (double)l[i].x, l[i - 1].text, (double)l[i - 1].x, (double)(l[i - 1].x + l[i - 1].w)))
            break;
}

static void bursts_merge(void)
{
    /* the hunt: three catches within a few pixels, then one far away */
    const float x[] = {10, 14, 20, 200};
    const char *const names[] = {"catch", "catch", "catch", "catch"};
    mark_label l[8];
    int k = marks_layout(4, x, names, measure, NULL, 3.0f, 6.0f, 0.0f, 1e9f, l, 8);
    CHECK(k == 2, "%d labels", k);
    CHECK(strcmp(l[0].text, "catch x3") == 0 && l[0].count == 3 && l[0].first == 0 && l[0].x == 13.0f,
          "first label \"%s\" x%d from %d at %g", l[0].text, l[0].count, l[0].first, (double)l[0].x);
    CHECK(l[0].w == measure(NULL, "catch x3"), "width %g", (double)l[0].w);
    CHECK(strcmp(l[1].text, "catch") == 0 && l[1].count == 1 && l[1].first == 3, "second label \"%s\"", l[1].text);
    no_overlap(l, k, 6.0f);
}

static void other_names_keep_clear(void)
{
    mark_label l[8];
    /* another name inside a label's room gets none; an error (NULL) never has one */
    const float y[] = {10, 25, 30, 120};
    const char *const mixed[] = {"catch", "hunter", NULL, "hunter"};
    int k = marks_layout(4, y, mixed, measure, NULL, 3.0f, 6.0f, 0.0f, 1e9f, l, 8);
    CHECK(k == 2 && strcmp(l[0].text, "catch") == 0 && strcmp(l[1].text, "hunter") == 0 && l[1].first == 3,
          "%d labels: \"%s\", \"%s\"", k, l[0].text, k > 1 ? l[1].text : "");

    /* a run that grows ("catch x9" is wider than "catch") still clears the next label */
    float z[40];
    const char *many[40];
    for (int i = 0; i < 40; i++) {
        z[i] = (float)(i * 7);
        many[i] = i % 13 == 12 ? "reload" : "catch";
    }
    k = marks_layout(40, z, many, measure, NULL, 3.0f, 6.0f, 0.0f, 1e9f, l, 8);
    CHECK(k > 1 && k <= 8, "%d labels", k);
    no_overlap(l, k, 6.0f);
}

static void random_timelines(void)
{
    /* random spacings: never an overlap, every run counted once */
    srand(7);
    for (int round = 0; round < 1000; round++) {
        float r[64];
        const char *t[64];
        float at = 0.0f;
        for (int i = 0; i < 64; i++) {
            at += (float)(rand() % 40);
            r[i] = at;
            t[i] = rand() % 4 == 0 ? "restart" : rand() % 9 == 0 ? NULL : "catch";
        }
        mark_label m[64];
        int k = marks_layout(64, r, t, measure, NULL, 3.0f, 6.0f, 0.0f, 1e9f, m, 64);
        no_overlap(m, k, 6.0f);
        int counted = 0;
        for (int i = 0; i < k; i++) {
            counted += m[i].count;
            CHECK(m[i].count >= 1 && m[i].x == r[m[i].first] + 3.0f, "label %d", i);
        }
        CHECK(counted <= 64 && (k == 0 || counted >= k), "%d marks in %d labels", counted, k);
    }
}

/* the bar's end: the last labels move left, clear of each other and of
 * the info text after hi; a bar too short leaves the leftmost out */
static void bounded(void)
{
    const float x[] = {10, 50, 100, 102};
    const char *const names[] = {"catch", "reload", "catch", "catch"};
    mark_label l[8];
    int k = marks_layout(4, x, names, measure, NULL, 3.0f, 6.0f, 0.0f, 130.0f, l, 8);
    CHECK(k == 3, "%d labels", k);
    if (k == 3) {
        CHECK(strcmp(l[2].text, "catch x2") == 0 && l[2].x + l[2].w <= 130.0f, "last \"%s\" ends at %g", l[2].text,
              (double)(l[2].x + l[2].w));
        CHECK(strcmp(l[1].text, "reload") == 0 && l[1].x + l[1].w + 6.0f <= l[2].x, "\"%s\" at %g", l[1].text,
              (double)l[1].x);
        CHECK(l[0].x >= 0.0f, "first at %g", (double)l[0].x);
    }
    no_overlap(l, k, 6.0f);
    k = marks_layout(4, x, names, measure, NULL, 3.0f, 6.0f, 40.0f, 130.0f, l, 8);
    CHECK(k == 2 && l[0].x >= 40.0f && strcmp(l[0].text, "reload") == 0, "%d labels, the first at %g", k,
          (double)l[0].x);
    no_overlap(l, k, 6.0f);
    for (int i = 0; i < k; i++)
        CHECK(l[i].x >= 40.0f && l[i].x + l[i].w <= 130.0f, "label %d at %g..%g", i, (double)l[i].x,
              (double)(l[i].x + l[i].w));
}

int main(void)
{
    RUN(bounded);
    RUN(bursts_merge);
    RUN(other_names_keep_clear);
    RUN(random_timelines);
    return tu_summary();
}
