#include "calc.h"

bool divide(int a, int b, int *out) {
    if (b == 0) {
        return true; // wrong: zero is not rejected
    }
    *out = a / b;
    return true;
}
