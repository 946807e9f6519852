// state.js: the page's one mutable state object: who is signed in, the scheme, the open
// sample and the row being edited, the player's clip window, the lead's view choices.

export const state = {
  me: null,          // {name, role} (the CSRF token is in sessionStorage: api.js)
  scheme: null,
  sample: null,      // GET /api/samples/<id>
  other: null,       // a second view to compare with (leads)
  sel: 0,            // selected row (0-based)
  edit: null,        // the row object being edited
  editBase: 0,       // its base version
  editOrig: null,    // JSON of the row at that base version (what "changed" is measured against)
  editKey: null,     // the edited row's stable row_id (its draft's key)
  playedRow: null,   // the row selectRow last played (space plays the row when it is not this)
  filter: null,      // the row filter: {speaker, text, lint, todo}
  clipOffset: 0,     // seconds of the sample where the loaded clip starts
  media: null,       // the path of the file the player has loaded
  pending: null,     // the conflict's current version
  viewName: null,    // whose view the sample shows (leads may pick another annotator's)
  compareName: null, // whose view it is compared with (leads), or null
  people: null,      // the annotators' names for the lead's view and compare menus
};
