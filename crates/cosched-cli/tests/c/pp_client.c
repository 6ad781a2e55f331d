/* A real program annotated with progress periods (RDA Sec. 2.3), used by
 * crates/cosched-cli/tests/pp.rs. Usage: pp_client NAME MB BUSY_MS
 * Prints: NAME ID T_CALL T_ADMITTED T_END (CLOCK_REALTIME seconds). */
#include <cosched/pp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: pp_client NAME MB BUSY_MS\n");
        return 2;
    }
    uint64_t bytes = (uint64_t)atoll(argv[2]) << 20;
    double busy = atof(argv[3]) / 1000.0;
    double t0 = now();
    int64_t id = pp_begin(COSCHED_PP_LLC, bytes, COSCHED_PP_REUSE_HIGH);
    if (id < 0) {
        fprintf(stderr, "pp_begin: %s\n", pp_last_error());
        return 1;
    }
    double t1 = now();
    volatile uint64_t x = 1;
    /* Busy for BUSY_MS of CPU time inside the period. */
    clock_t c0 = clock();
    while ((double)(clock() - c0) / CLOCKS_PER_SEC < busy) x = x * 6364136223846793005ull + 1;
    double t2 = now();
    if (pp_end(id) != 0) {
        fprintf(stderr, "pp_end: %s\n", pp_last_error());
        return 1;
    }
    printf("%s %lld %.6f %.6f %.6f\n", argv[1], (long long)id, t0, t1, t2);
    return 0;
}
