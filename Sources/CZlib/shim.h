#ifndef LINKRUNWAY_CZLIB_SHIM_H
#define LINKRUNWAY_CZLIB_SHIM_H
#include <zlib.h>
#endif
