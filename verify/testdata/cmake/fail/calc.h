#pragma once
// divide returns a / b, and false when b is zero.
bool divide(int a, int b, int *out);
