// SPDX-License-Identifier: GPL-2.0
/* The backends' registry (registry.h): a new backend is one file in
 * backends/ that ends with FC_REGISTER_BACKEND (backend.h), nothing here. */
#include "backend.h"

FC_REGISTRY(backend, struct fc_backend, FC_MAX_BACKENDS)
