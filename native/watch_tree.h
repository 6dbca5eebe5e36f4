#ifndef COMITY_WATCH_TREE_H
#define COMITY_WATCH_TREE_H
#include <node_api.h>
#ifdef __linux__
/* See watch_tree.c: watchOpen, watchAdd, watchChanged on `exports`. */
void comity_register_watch(napi_env env, napi_value exports);
#endif
#endif
