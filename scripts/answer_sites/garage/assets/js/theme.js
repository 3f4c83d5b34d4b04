/* Alnoor theme – mobile menu + FAQ accordion */
document.addEventListener('DOMContentLoaded',function(){
  var t=document.querySelector('.menu-toggle'),m=document.querySelector('#menu-main');
  if(t&&m){t.addEventListener('click',function(){m.style.display=m.style.display==='block'?'':'block';});}
  document.querySelectorAll('.elementor-tab-title').forEach(function(h){
    var c=h.nextElementSibling; if(c){c.hidden=false;}
    h.addEventListener('click',function(){ if(c){c.hidden=!c.hidden;} });
  });
});
