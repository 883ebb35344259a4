// Imports of toolgate whose exports go unused bundle to nothing: every module is free of side effects.
import "toolgate";
import "toolgate/client";

console.log("app");
