/* Compiled with -std=c99 -Wall -Wextra -pedantic -Werror by the test suite. */
#include "gmlab.h"

int main(void) {
    gm_stride_copy_params p;
    gm_stride_copy_params_init(&p);
    return gm_status_string(GM_OK)[0] == 'o' && p.max_stride == 32 ? 0 : 1;
}
