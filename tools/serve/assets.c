/*
** assets.c: finds the review page's built-in files (HTML, CSS, JavaScript modules) by URL
** path in the table tools/serve/assets.cmake generates from CMakeLists.txt's list.
*/
#include <string.h>

#include "assets.h"

/*
** Look url up in srv_assets: an exact match of the whole path, "/" standing for
** "/index.html". A few dozen entries at most, so a linear scan. NULL if not found.
*/
const srv_asset *srv_asset_find(const char *url) {
  if (strcmp(url, "/") == 0)
    url = "/index.html";
  for (size_t i = 0; i < srv_assets_count; i++)
    if (strcmp(srv_assets[i].path, url) == 0)
      return &srv_assets[i];
  return NULL;
}
