/*
** rescue.h: the public interface of the rescue toolkit, all in one include.
*/
#ifndef RESCUE_H
#define RESCUE_H

#include "rescue_adjudicate.h"
#include "rescue_agree.h"
#include "rescue_alloc.h"
#include "rescue_audit.h"
#include "rescue_annotators.h"
#include "rescue_buf.h"
#include "rescue_clip.h"
#include "rescue_curate.h"
#include "rescue_draft.h"
#include "rescue_elan.h"
#include "rescue_error.h"
#include "rescue_export.h"
#include "rescue_import.h"
#include "rescue_json.h"
#include "rescue_lint.h"
#include "rescue_media.h"
#include "rescue_output.h"
#include "rescue_privacy.h"
#include "rescue_scheme.h"
#include "rescue_score.h"
#include "rescue_sha256.h"
#include "rescue_similar.h"
#include "rescue_split.h"
#include "rescue_stats.h"
#include "rescue_subtitles.h"
#include "rescue_store.h"
#include "rescue_tasks.h"
#include "rescue_version.h"
#include "rescue_workflow.h"

#endif
