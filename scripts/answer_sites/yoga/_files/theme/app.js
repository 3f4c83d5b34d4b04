(function(){document.querySelectorAll('.b-acc-toggle').forEach(function(b){b.addEventListener('click',function(){
var it=b.closest('.b-acc-item');var c=it.querySelector('.b-acc-c');var o=it.classList.toggle('is-open');
b.setAttribute('aria-expanded',o);c.setAttribute('aria-hidden',!o);});});
var cb=document.getElementById('wnd_CookieBar');if(cb&&localStorage.getItem('wnd_consent')){cb.classList.add('is-hidden');}
document.querySelectorAll('[data-consent]').forEach(function(b){b.addEventListener('click',function(e){e.preventDefault();
localStorage.setItem('wnd_consent',b.getAttribute('data-consent'));cb&&cb.classList.add('is-hidden');});});})();
