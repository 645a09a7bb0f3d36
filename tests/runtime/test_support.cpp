// Anchor for the embedded test kernel table (see CMakeLists.txt).
#include "test_kernels.h"
