/*
 * fuzz_record.c — libFuzzer target over the recording loader
 * (rec_parse, app/record_read.c), which reads files people send each other.
 *
 * Input: the bytes of a recording. A parse must either fail with a message
 * or give a recording whose every part the replayer can use without
 * checking again: a scene, events in tick order up to the end tick, each
 * source inside the file's bytes, each mark of a known kind, each argument
 * a string. A crash, a read outside the buffer or a leak fails (ASan).
 *
 *   (built by tests/extra.cmake when the compiler is clang)
 *   ./fuzz_record -max_total_time=60 tests/fuzz/corpus_record
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_read.h"

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_record: %s\n", what);
        abort();
    }
}

static void check_recording(const rec_recording *r, size_t size)
{
    require(r->scene[0] != '\0', "a recording without a scene was accepted");
    require(r->budget >= 0 && r->time_limit >= 0 && r->memory_mb >= 0, "a negative limit was accepted");
    long last = 0;
    int sums = 0;
    for (int i = 0; i < r->n; i++) {
        const rec_event *e = &r->ev[i];
        require(e->tick >= last && e->tick <= r->end, "an event out of tick order or past the end");
        last = e->tick;
        if (e->kind == EV_FILE) {
            require(e->root == 0 || e->root == 1, "a source with a bad root");
            require(e->data >= r->buf && e->data + e->len <= r->buf + size, "a source outside the file");
            require(e->text != NULL && e->text[0] != '\0', "a source with no path");
        }
        if (e->kind == EV_MARK)
            require(e->button >= 0 && e->button < 3 && e->text != NULL, "a mark of no known kind");
        if (e->kind == EV_KEY || e->kind == EV_RELOAD)
            require(e->text != NULL && e->text[0] != '\0', "an empty key or reload");
        sums += e->kind == EV_SUM;
    }
    require(sums == r->nsums, "the checksum count disagrees with the events");
    for (int i = 0; i < r->argc; i++)
        require(r->argv[i] != NULL && strlen(r->argv[i]) < size, "an argument outside the file");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    rec_recording r;
    char err[512];
    err[0] = '\0';
    if (rec_parse(&r, buf, size, err, sizeof err))
        check_recording(&r, size);
    else
        require(err[0] != '\0', "a refusal without a message");
    rec_recording_free(&r);
    return 0;
}
