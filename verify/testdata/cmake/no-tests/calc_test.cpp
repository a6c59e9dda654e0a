#include <cstdio>
#include <cstring>
#include "calc.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: calc_test CASE\n");
        return 2;
    }
    int q = 0;
    if (std::strcmp(argv[1], "divides") == 0) {
        if (!divide(7, 2, &q) || q != 3) {
            std::fprintf(stderr, "divide(7, 2) = %d, want 3\n", q);
            return 1;
        }
        return 0;
    }
    if (std::strcmp(argv[1], "rejects_zero") == 0) {
        if (divide(1, 0, &q)) {
            std::fprintf(stderr, "divide(1, 0) succeeded, want false\n");
            return 1;
        }
        return 0;
    }
    std::fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
