{
  "targets": [
    {
      "target_name": "comity_flat_parse",
      "variables": {
        "tree_sitter": "<!(node -p \"require('path').dirname(require.resolve('tree-sitter/package.json'))\")/vendor/tree-sitter/lib"
      },
      "sources": ["flat_parse.c", "stat_many.c", "tree_sitter_runtime.c", "extract_symbols.cc"],
      "include_dirs": ["<(tree_sitter)/include", "<(tree_sitter)/src"],
      "defines": ["NAPI_VERSION=8", "_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE"],
      "cflags_c": ["-std=c11", "-fvisibility=hidden"],
      "cflags_cc": ["-std=c++17", "-fvisibility=hidden", "-fexceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11", "-fvisibility=hidden"], "OTHER_CPLUSPLUSFLAGS": ["-std=c++17", "-fvisibility=hidden"], "GCC_ENABLE_CPP_EXCEPTIONS": "YES" },
      "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] } }
    }
  ]
}
