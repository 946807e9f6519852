/*
** assets.h: the review page's files built into the server (tools/serve/web/): a table made
** by tools/serve/assets.cmake from the list in CMakeLists.txt, and the lookup by URL path.
*/
#ifndef RESCUE_SERVE_ASSETS_H
#define RESCUE_SERVE_ASSETS_H

#include <stddef.h>

typedef struct srv_asset {
  const char *path;          /* URL path, e.g. "/js/main.js" */
  const char *ctype;         /* Content-Type, e.g. "text/javascript; charset=utf-8" */
  const unsigned char *data; /* the file's bytes (NUL-terminated) */
  const size_t *len;         /* their number (defined with the bytes, in another file) */
} srv_asset;

/* The generated table (<build>/embed/rescue_web_assets.c) and its number of entries. */
extern const srv_asset srv_assets[];
extern const size_t srv_assets_count;

/*
** The built-in file served at url ("/" is "/index.html"), or NULL when there is none. The
** entry is static data: the caller neither frees nor changes it.
*/
const srv_asset *srv_asset_find(const char *url);

#endif
