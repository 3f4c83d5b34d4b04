(function(){
  document.querySelectorAll('.accordion-item__click-target').forEach(function(btn){
    btn.addEventListener('click', function(){
      var panel = document.getElementById(btn.getAttribute('aria-controls'));
      var open = btn.getAttribute('aria-expanded') === 'true';
      btn.setAttribute('aria-expanded', open ? 'false' : 'true');
      if (panel) panel.classList.toggle('is-open', !open);
    });
  });
  var banner = document.querySelector('[data-cookie-banner]');
  if (banner) {
    if (localStorage.getItem('mp-cookie-consent')) banner.classList.add('is-hidden');
    banner.querySelectorAll('button').forEach(function(b){
      b.addEventListener('click', function(){
        localStorage.setItem('mp-cookie-consent', b.classList.contains('sqs-cookie-banner-v2-accept') ? 'accepted' : 'declined');
        banner.classList.add('is-hidden');
      });
    });
  }
})();
