/* tests/refresh-fp.c: print fingerprint_read(), the fingerprint refresh
 * reads straight from /sys, to compare with detect's (test driver) */
#include "config.h"

#include "base/util.h"
#include "pipeline/fingerprint.h"

int main(void)
{
        _cleanup_free_ char *chassis = NULL;
        char fp[17];

        if (fingerprint_read(fp, &chassis) < 0)
                return 1;
        printf("%s %s\n", fp, chassis ? chassis : "-");
        return 0;
}
