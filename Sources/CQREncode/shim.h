#ifndef LINKRUNWAY_CQRENCODE_SHIM_H
#define LINKRUNWAY_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
