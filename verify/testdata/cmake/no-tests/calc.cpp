#include "calc.h"

bool divide(int a, int b, int *out) {
    if (b == 0) {
        return false;
    }
    *out = a / b;
    return true;
}
