#include "calc.h"

bool divide(int a, int b, int *out) {
    *out = a / b
    return undeclared_check(b);
}
