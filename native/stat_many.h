#ifndef COMITY_STAT_MANY_H
#define COMITY_STAT_MANY_H
#include <node_api.h>
#ifndef _WIN32
/* See stat_many.c. */
napi_value comity_stat_many(napi_env env, napi_callback_info info);
#endif
#endif
