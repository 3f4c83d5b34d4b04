/* Astra + Elementor light – toggles, submenu and cookie banner (Kamenjar Digital) */
(function(){
  document.querySelectorAll('.elementor-tab-title').forEach(function(el){
    el.addEventListener('click',function(){
      var open=el.getAttribute('aria-expanded')==='true';
      el.setAttribute('aria-expanded',open?'false':'true');
      var c=document.getElementById(el.getAttribute('aria-controls'));
      if(c){c.style.display=open?'none':'block';}
    });
  });
  var b=document.querySelector('.cmplz-cookiebanner');
  if(b && !document.cookie.match(/cmplz_consent=/)){b.style.display='block';}
  document.querySelectorAll('.cmplz-btn').forEach(function(x){x.addEventListener('click',function(){
    document.cookie='cmplz_consent='+(x.classList.contains('cmplz-accept')?'all':'necessary')+';path=/;max-age=31536000';
    b.style.display='none';});});
})();
