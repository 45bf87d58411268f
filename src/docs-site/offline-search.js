// Search for the site opened from disk (the archive's docs/index.html): Chromium refuses MkDocs' search worker and its
// index request on file:// pages, so there the index is read from search_index.js (a script tag may load a file)
// and searched on the page itself with the same Lunr and the same result list.
window.addEventListener('load', function () { // after search/main.js, whose helpers this uses
  if (window.location.protocol !== 'file:') {
    return;
  }
  function load(src, then) {
    var script = document.createElement('script');
    script.src = joinUrl(base_url, src);
    script.onload = then;
    document.head.appendChild(script);
  }
  load('search/lunr.js', function () {
    load('search/search_index.js', function () {
      var data = window.sluiceSearchIndex;
      var documents = {};
      data.docs.forEach(function (doc) { documents[doc.location] = doc; });
      var index = lunr(function () {
        this.field('title');
        this.field('text');
        this.ref('location');
        var builder = this;
        data.docs.forEach(function (doc) { builder.add(doc); });
      });
      function run() {
        var query = document.getElementById('mkdocs-search-query').value;
        if (query.length < data.config.min_search_length) {
          displayResults([]);
          return;
        }
        displayResults(index.search(query).map(function (result) {
          var doc = documents[result.ref];
          doc.summary = doc.text.substring(0, 200);
          return doc;
        }));
      }
      var input = document.getElementById('mkdocs-search-query');
      input.addEventListener('keyup', run);
      var term = getSearchTermFromLocation();
      if (term) {
        input.value = term;
        run();
      }
    });
  });
});
