console.log('The token exported as SVC_TUNNEL_USER is checked for revocation when the job ends.')
