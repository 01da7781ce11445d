/*
 * test_portable.c — src/portable.h: the bit counts every build uses (the
 * builtins, or the plain-C fallback in the portable build and on MSVC)
 * agree with a bit-by-bit count on every single bit and on random words.
 */
#include "portable.h"
#include "test_util.h"

static int slow_ctz(uint64_t v)
{
    int n = 0;
    while (!(v & 1)) v >>= 1, n++;
    return n;
}

static int slow_clz(uint64_t v)
{
    int n = 0;
    while (!(v & (1ull << 63))) v <<= 1, n++;
    return n;
}

static void bit_counts(void)
{
    for (int b = 0; b < 64; b++) {
        uint64_t v = 1ull << b;
        CHECK(st__ctz64(v) == b, "ctz of bit %d gave %d", b, st__ctz64(v));
        CHECK(st__clz64(v) == 63 - b, "clz of bit %d gave %d", b, st__clz64(v));
        CHECK(st__ctz64(~0ull << b) == b, "ctz of ones from bit %d gave %d", b, st__ctz64(~0ull << b));
        CHECK(st__clz64(~0ull >> b) == b, "clz of ones below bit %d gave %d", 63 - b, st__clz64(~0ull >> b));
    }
    uint64_t s = 12345;
    for (int i = 0; i < 100000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t v = s >> (s & 63); /* words of every width */
        if (v == 0) continue;
        if (!CHECK(st__ctz64(v) == slow_ctz(v) && st__clz64(v) == slow_clz(v), "bit counts of %016llx",
                   (unsigned long long)v))
            break;
    }
}

int main(void)
{
    RUN(bit_counts);
    return tu_summary();
}
