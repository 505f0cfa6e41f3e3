/* verb-detect.h: the detect verb and what it prints (the verb layer renders; inventory.h holds the data) */
#pragma once

#include <stdio.h>

#include "model/inventory.h"

void inventory_print_text(const struct inventory *inv, FILE *f);
void inventory_print_json(const struct inventory *inv, FILE *f);
