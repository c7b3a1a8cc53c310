#ifndef LINKRUNWAY_CMAXMINDDB_SHIM_H
#define LINKRUNWAY_CMAXMINDDB_SHIM_H
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <maxminddb.h>
#endif
