#ifndef COMITY_SPAWN_CAPTURE_H
#define COMITY_SPAWN_CAPTURE_H
#include <node_api.h>
#ifndef _WIN32
/* See spawn_capture.c: spawnCapture on `exports`. */
void comity_register_spawn(napi_env env, napi_value exports);
#endif
#endif
