// Jest runs CommonJS in a vm context where a dynamic import() fails unless node runs with
// --experimental-vm-modules. The OTLP/HTTP exporter loads http/https that way; this turns those
// two imports into requires for the tests (the built server runs the package unchanged).
module.exports = {
  process(source) {
    return {
      code: source.replace(/\bimport\((['"])(https?)\1\)/g, "Promise.resolve(require('$2'))"),
    };
  },
};
