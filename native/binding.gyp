{
  "targets": [
    {
      "target_name": "comity_flat_parse",
      "sources": ["flat_parse.c", "stat_many.c", "watch_tree.c", "spawn_capture.c", "tree_sitter_runtime.c"],
      "include_dirs": ["tree-sitter/include", "tree-sitter/src"],
      "defines": ["NAPI_VERSION=8", "_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE"],
      "cflags_c": ["-std=c11", "-fvisibility=hidden"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-fvisibility=hidden"] }
    }
  ]
}
